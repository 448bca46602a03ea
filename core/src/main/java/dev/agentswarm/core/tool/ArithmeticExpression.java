package dev.agentswarm.core.tool;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;

/**
 * Exact decimal arithmetic over a small expression language, by recursive descent:
 *
 * <pre>
 *   sum     = product { ("+" | "-" | "−") product }
 *   product = unary { ("*" | "×" | "/" | "÷") unary }
 *   unary   = { "+" | "-" | "−" } power
 *   power   = primary [ ("^" | "**") unary ]          right-associative: 2^3^2 = 2^9
 *   primary = number | "(" sum ")"
 *   number  = digits [ "." digits ] [ ("e" | "E") [sign] digits ]   (".5" and "5." too)
 * </pre>
 *
 * Unary minus binds looser than {@code ^}, as in mathematics: {@code -2^2 = -4}, {@code 2^-1 = 0.5}.
 * Addition, subtraction, multiplication and integer powers are exact; division rounds to
 * {@link MathContext#DECIMAL128} (34 significant digits); a non-integer exponent is computed in
 * double precision. Errors are {@link IllegalArgumentException}s whose messages say what is wrong
 * and where (positions count from 1), because they go back to a model that must fix its input.
 * Exponents and result sizes are capped so a short expression cannot make the tool run for minutes.
 */
public final class ArithmeticExpression {

    /** Largest |exponent| accepted by {@code ^}. */
    public static final int MAX_EXPONENT = 10_000;
    /** Largest number of digits (integer plus fraction) of any literal, intermediate value or result. */
    public static final int MAX_DIGITS = 10_000;
    /** Deepest nesting of parentheses and powers, which bounds the parser's recursion. */
    public static final int MAX_DEPTH = 256;

    private static final int MAX_EXCERPT = 120;
    private static final double LOG10_2 = Math.log10(2);

    private final String src;
    private int pos;
    private int depth;

    private ArithmeticExpression(String src) {
        this.src = src;
    }

    /** The exact value of {@code expression}; throws {@link IllegalArgumentException} with a usable message. */
    public static BigDecimal evaluate(String expression) {
        if (expression == null) throw new IllegalArgumentException("empty expression");
        ArithmeticExpression p = new ArithmeticExpression(expression);
        p.skipSpaces();
        if (p.atEnd()) throw new IllegalArgumentException("empty expression");
        BigDecimal value = p.sum();
        p.skipSpaces();
        if (!p.atEnd()) {
            if (p.src.charAt(p.pos) == ')') throw p.error("unexpected ')'", p.pos, " (no '(' left to close)");
            throw p.unexpected(" (expected an operator)");
        }
        return value;
    }

    /**
     * {@code a / b}: exact when the quotient terminates (the divisor's digits have no prime factor
     * but 2 and 5, e.g. {@code 3 / 4}), else rounded to 34 significant digits. The exact path is
     * also the cheap one: it avoids stripping thirty-odd zeros off a rounded quotient.
     */
    static BigDecimal quotient(BigDecimal a, BigDecimal b) {
        BigInteger u = b.unscaledValue().abs();
        if (u.bitLength() < 63) {
            long m = u.longValue();
            if (m != 0) {
                while (m % 10 == 0) m /= 10;
                while ((m & 1) == 0) m >>= 1;
                while (m % 5 == 0) m /= 5;
                if (m == 1) return a.divide(b);
            }
        }
        return a.divide(b, MathContext.DECIMAL128);
    }

    /** The value as the calculator prints it: plain notation, no trailing zeros ({@code 20}, not {@code 2E+1}). */
    public static String format(BigDecimal value) {
        return value.signum() == 0 ? "0" : value.stripTrailingZeros().toPlainString();
    }

    private BigDecimal sum() {
        BigDecimal v = product();
        while (true) {
            skipSpaces();
            if (atEnd()) return v;
            char c = src.charAt(pos);
            if (c == '+') {
                pos++;
                v = checked(v.add(product()));
            } else if (c == '-' || c == '−') {
                pos++;
                v = checked(v.subtract(product()));
            } else {
                return v;
            }
        }
    }

    private BigDecimal product() {
        BigDecimal v = unary();
        while (true) {
            skipSpaces();
            if (atEnd()) return v;
            char c = src.charAt(pos);
            if (c == '*' || c == '×') {
                pos++;
                v = multiply(v, unary());
            } else if (c == '/' || c == '÷') {
                int at = pos++;
                BigDecimal d = unary();
                if (d.signum() == 0) throw new IllegalArgumentException("division by zero" + excerptSuffix(at));
                v = checked(quotient(v, d));
            } else {
                return v;
            }
        }
    }

    private BigDecimal unary() {
        // Iterative so that "------5" costs no stack.
        boolean negate = false;
        while (true) {
            skipSpaces();
            if (atEnd()) break;
            char c = src.charAt(pos);
            if (c == '-' || c == '−') {
                negate = !negate;
                pos++;
            } else if (c == '+') {
                pos++;
            } else {
                break;
            }
        }
        BigDecimal v = power();
        return negate ? v.negate() : v;
    }

    private BigDecimal power() {
        BigDecimal base = primary();
        skipSpaces();
        if (atEnd()) return base;
        int at = pos;
        char c = src.charAt(pos);
        if (c == '^') {
            pos++;
        } else if (c == '*' && pos + 1 < src.length() && src.charAt(pos + 1) == '*') {
            pos += 2;
        } else {
            return base;
        }
        enter(at);
        BigDecimal exponent = unary();
        depth--;
        return pow(base, exponent, at);
    }

    private BigDecimal primary() {
        skipSpaces();
        if (atEnd()) throw error("number expected", pos, "");
        char c = src.charAt(pos);
        if (c == '(') {
            int open = pos++;
            enter(open);
            BigDecimal v = sum();
            skipSpaces();
            if (atEnd()) {
                throw new IllegalArgumentException("unbalanced parentheses: '(' at position " + (open + 1)
                        + " is never closed in: " + excerpt(open));
            }
            if (src.charAt(pos) != ')') throw unexpected(" (expected an operator or ')')");
            pos++;
            depth--;
            return v;
        }
        if (isDigit(c) || c == '.') return number();
        if (isOperatorOrParen(c)) throw error("number expected", pos, "");
        throw unexpected("");
    }

    /** A symbol out of place ({@code hint} says what would fit), or one the language does not know at all. */
    private IllegalArgumentException unexpected(String hint) {
        char c = src.charAt(pos);
        if (isDigit(c) || c == '.' || c == '(' || isOperatorOrParen(c)) return error("unexpected " + quote(src, pos), pos, hint);
        return error("unexpected character " + quote(src, pos), pos, " (allowed: numbers, + - * / ^, × ÷ −, and parentheses)");
    }

    private BigDecimal number() {
        int start = pos;
        int digits = 0;
        long integer = 0;
        while (!atEnd() && isDigit(src.charAt(pos))) {
            integer = integer * 10 + (src.charAt(pos) - '0');
            pos++;
            digits++;
        }
        // Fast path for the common case, a short integer: no substring, no decimal-string parsing.
        if (digits > 0 && digits <= 18 && (atEnd() || !isNumberContinuation(src.charAt(pos)))) {
            return BigDecimal.valueOf(integer);
        }
        if (!atEnd() && src.charAt(pos) == '.') {
            pos++;
            while (!atEnd() && isDigit(src.charAt(pos))) {
                pos++;
                digits++;
            }
        }
        if (digits == 0) throw error("malformed number '" + src.substring(start, pos) + "'", start, "");
        // An exponent only when digits follow, so "2e" leaves the 'e' to be reported on its own.
        if (!atEnd() && (src.charAt(pos) == 'e' || src.charAt(pos) == 'E')) {
            int e = pos + 1;
            if (e < src.length() && (src.charAt(e) == '+' || src.charAt(e) == '-')) e++;
            if (e < src.length() && isDigit(src.charAt(e))) {
                pos = e;
                while (!atEnd() && isDigit(src.charAt(pos))) pos++;
            }
        }
        String text = src.substring(start, pos);
        BigDecimal v;
        try {
            v = new BigDecimal(text);
        } catch (NumberFormatException | ArithmeticException e) {
            throw error("number out of range '" + excerptOf(text) + "'", start, "");
        }
        if (size(v) > MAX_DIGITS) throw error("number has too many digits (more than " + MAX_DIGITS + ")", start, "");
        return v;
    }

    private static boolean isNumberContinuation(char c) {
        return c == '.' || c == 'e' || c == 'E';
    }

    private BigDecimal multiply(BigDecimal a, BigDecimal b) {
        // Exact product size is known before computing it: precisions add, scales add.
        long estimate = (long) a.precision() + b.precision() + Math.abs((long) a.scale() + b.scale());
        if (estimate > MAX_DIGITS + 1L) throw tooLarge();
        return checked(a.multiply(b));
    }

    private BigDecimal pow(BigDecimal base, BigDecimal exponent, int at) {
        if (exponent.signum() == 0) return BigDecimal.ONE;
        boolean integral = exponent.stripTrailingZeros().scale() <= 0;
        if (!integral) {
            double r = Math.pow(base.doubleValue(), exponent.doubleValue());
            if (Double.isNaN(r)) {
                throw new IllegalArgumentException("a negative number to a non-integer power is not a real number: "
                        + format(base) + " ^ " + format(exponent));
            }
            if (Double.isInfinite(r)) {
                if (base.signum() == 0) throw new IllegalArgumentException("division by zero (0 to a negative power)");
                throw tooLarge();
            }
            return checked(BigDecimal.valueOf(r));
        }
        if (exponent.abs().compareTo(BigDecimal.valueOf(MAX_EXPONENT)) > 0) {
            throw new IllegalArgumentException("exponent too large: |exponent| must be at most " + MAX_EXPONENT
                    + ", got " + format(exponent) + excerptSuffix(at));
        }
        int n = exponent.intValueExact();
        if (base.signum() == 0) {
            if (n < 0) throw new IllegalArgumentException("division by zero (0 to a negative power)");
            return BigDecimal.ZERO;
        }
        BigDecimal b = base.stripTrailingZeros();
        // Size of b^|n| is about |n| * (log10|unscaled| + |scale|): refuse before doing the work.
        BigInteger u = b.unscaledValue().abs();
        double log10u = u.bitLength() < 1000 ? Math.log10(u.doubleValue()) : u.bitLength() * LOG10_2;
        double estimate = Math.abs((double) n) * (log10u + Math.abs((double) b.scale()));
        if (estimate > MAX_DIGITS + 1) throw tooLarge();
        BigDecimal p = checked(b.pow(Math.abs(n)));
        return n > 0 ? p : checked(quotient(BigDecimal.ONE, p));
    }

    private BigDecimal checked(BigDecimal v) {
        if (size(v) > MAX_DIGITS) throw tooLarge();
        return v;
    }

    /** Upper bound of the digits the plain rendering needs: significant digits plus shift either way. */
    private static long size(BigDecimal v) {
        return (long) v.precision() + Math.abs((long) v.scale());
    }

    private static IllegalArgumentException tooLarge() {
        return new IllegalArgumentException("result too large: more than " + MAX_DIGITS + " digits");
    }

    private void enter(int at) {
        if (++depth > MAX_DEPTH) {
            throw new IllegalArgumentException("expression is nested too deeply (more than " + MAX_DEPTH
                    + " levels) at position " + (at + 1));
        }
    }

    private void skipSpaces() {
        while (pos < src.length() && (Character.isWhitespace(src.charAt(pos)) || Character.isSpaceChar(src.charAt(pos)))) {
            pos++;
        }
    }

    private boolean atEnd() {
        return pos >= src.length();
    }

    private IllegalArgumentException error(String what, int at, String hint) {
        String where = at >= src.length() ? " at position " + (at + 1) + " (end of expression)" : " at position " + (at + 1);
        return new IllegalArgumentException(what + where + " in: " + excerpt(at) + hint);
    }

    private String excerptSuffix(int at) {
        return " at position " + (at + 1) + " in: " + excerpt(at);
    }

    /** The expression, or a window of it around {@code at} when it is long. */
    private String excerpt(int at) {
        if (src.length() <= MAX_EXCERPT) return src;
        int from = Math.max(0, Math.min(at - MAX_EXCERPT / 2, src.length() - MAX_EXCERPT));
        int to = Math.min(src.length(), from + MAX_EXCERPT);
        return (from > 0 ? "…" : "") + src.substring(from, to) + (to < src.length() ? "…" : "");
    }

    private static String excerptOf(String s) {
        return s.length() <= 40 ? s : s.substring(0, 40) + "…";
    }

    private static String quote(String s, int at) {
        int cp = s.codePointAt(at);
        return "'" + new String(Character.toChars(cp)) + "'";
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isOperatorOrParen(char c) {
        return c == '+' || c == '-' || c == '−' || c == '*' || c == '×' || c == '/' || c == '÷' || c == '^' || c == ')';
    }
}
