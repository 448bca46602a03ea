package dev.agentswarm.environments.tau2;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.PythonText;
import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * τ²'s {@code calculate} tool: an arithmetic expression of digits, {@code + - * / ( ) .} and spaces,
 * evaluated as Python evaluates it (integers exact, {@code /} true division, {@code //} floor division,
 * {@code **} power, unary signs), answered as {@code str(round(float(value), 2))}; a syntax error or a
 * division by zero in Python's words.
 */
final class PythonArithmetic {

    private static final String ALLOWED = "0123456789+-*/(). ";

    private PythonArithmetic() {}

    static String calculate(JsonNode expression) {
        if (!expression.isTextual()) throw new Tau2Error("'" + PythonTypes.name(expression) + "' object is not iterable");
        String e = expression.asText();
        for (int i = 0; i < e.length(); i++) if (ALLOWED.indexOf(e.charAt(i)) < 0) throw new Tau2Error("Invalid characters in expression");
        Parser p = new Parser(e);
        Object v = p.expression();
        p.skipSpaces();
        if (p.at < e.length()) throw syntax();
        double d = v instanceof BigInteger b ? b.doubleValue() : (Double) v;
        return PythonText.floatRepr(RetailTools.round2(d));
    }

    private static Tau2Error syntax() {
        return new Tau2Error("invalid syntax (<string>, line 1)");
    }

    /** expression := term (('+'|'-') term)*; term := unary (('*'|'/'|'//') unary)*; unary := ('+'|'-') unary | power; power := atom ('**' unary)? */
    private static final class Parser {
        final String s;
        int at;

        Parser(String s) {
            this.s = s;
        }

        void skipSpaces() {
            while (at < s.length() && s.charAt(at) == ' ') at++;
        }

        boolean take(String token) {
            skipSpaces();
            if (s.startsWith(token, at)) {
                at += token.length();
                return true;
            }
            return false;
        }

        Object expression() {
            Object v = term();
            while (true) {
                skipSpaces();
                if (take("+")) v = add(v, term(), false);
                else if (at < s.length() && s.charAt(at) == '-' ) {
                    at++;
                    v = add(v, term(), true);
                } else return v;
            }
        }

        Object term() {
            Object v = unary();
            while (true) {
                skipSpaces();
                if (s.startsWith("**", at)) return v;
                if (take("//")) v = floorDiv(v, unary());
                else if (take("*")) v = mul(v, unary());
                else if (take("/")) v = div(v, unary());
                else return v;
            }
        }

        Object unary() {
            if (take("-")) return negate(unary());
            if (take("+")) return unary();
            return power();
        }

        Object power() {
            Object base = atom();
            if (take("**")) return pow(base, unary());
            return base;
        }

        Object atom() {
            skipSpaces();
            if (take("(")) {
                Object v = expression();
                if (!take(")")) throw syntax();
                return v;
            }
            int start = at;
            while (at < s.length() && (Character.isDigit(s.charAt(at)) || s.charAt(at) == '.')) at++;
            String num = s.substring(start, at);
            if (num.isEmpty() || num.equals(".") || num.indexOf('.') != num.lastIndexOf('.')) throw syntax();
            if (num.indexOf('.') >= 0) return Double.parseDouble(num);
            if (num.length() > 1 && num.startsWith("0") && !num.chars().allMatch(c -> c == '0')) throw syntax(); // Python refuses 012
            return new BigInteger(num);
        }
    }

    private static double d(Object v) {
        return v instanceof BigInteger b ? b.doubleValue() : (Double) v;
    }

    private static Object add(Object a, Object b, boolean subtract) {
        if (a instanceof BigInteger x && b instanceof BigInteger y) return subtract ? x.subtract(y) : x.add(y);
        return subtract ? d(a) - d(b) : d(a) + d(b);
    }

    private static Object mul(Object a, Object b) {
        if (a instanceof BigInteger x && b instanceof BigInteger y) return x.multiply(y);
        return d(a) * d(b);
    }

    private static Object negate(Object a) {
        return a instanceof BigInteger x ? x.negate() : -(Double) a;
    }

    private static Object div(Object a, Object b) {
        if (d(b) == 0) throw new Tau2Error(a instanceof BigInteger && b instanceof BigInteger ? "division by zero" : "float division by zero");
        if (a instanceof BigInteger x && b instanceof BigInteger y) {
            // Python's int / int is correctly rounded: exact doubles divide so; larger ones go through 40 digits first.
            if (x.bitLength() <= 53 && y.bitLength() <= 53) return x.doubleValue() / y.doubleValue();
            return new BigDecimal(x).divide(new BigDecimal(y), new java.math.MathContext(40)).doubleValue();
        }
        return d(a) / d(b);
    }

    private static Object floorDiv(Object a, Object b) {
        if (a instanceof BigInteger x && b instanceof BigInteger y) {
            if (y.signum() == 0) throw new Tau2Error("integer division or modulo by zero");
            BigInteger[] qr = x.divideAndRemainder(y);
            return qr[1].signum() != 0 && (qr[1].signum() != y.signum()) ? qr[0].subtract(BigInteger.ONE) : qr[0];
        }
        if (d(b) == 0) throw new Tau2Error("float floor division by zero");
        return Math.floor(d(a) / d(b));
    }

    private static Object pow(Object a, Object b) {
        if (a instanceof BigInteger x && b instanceof BigInteger y && y.signum() >= 0 && y.bitLength() < 16) return x.pow(y.intValue());
        if (d(a) == 0 && d(b) < 0) throw new Tau2Error("0.0 cannot be raised to a negative power");
        return Math.pow(d(a), d(b));
    }
}
