package dev.agentswarm.environments.sql;

import dev.agentswarm.core.json.PythonText;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The few Python behaviours AgentBench's DBBench scorer leans on, reproduced so that its answer
 * cleaning gives the same strings here: {@code str.strip()}, {@code float(s)}, {@code str(x)} and
 * {@code repr(x)} of floats, strings, lists and tuples, and {@code eval} of a literal (the scorer
 * evals answers that look like lists).
 *
 * <p>{@link #evalLiteral} knows literals only: lists, tuples, parenthesised values, strings (with
 * {@code r}/{@code u} prefixes and implicit concatenation), ints (decimal, hex, octal, binary, with
 * underscores), floats, signs, {@code None}, {@code True}, {@code False}. Python's {@code eval}
 * would also run expressions ({@code [1][0]}) and build dicts and sets; here those fail to parse,
 * which sends the scorer down its manual split, as it does for any eval error. Digits are ASCII
 * ({@code float()} also takes other Unicode digits).
 */
final class PythonValues {

    /** A Python tuple: its {@code str} is {@code (a, b)} or {@code (a,)}. */
    record Tuple(List<Object> items) {
        Tuple {
            items = Collections.unmodifiableList(new ArrayList<>(items));
        }
    }

    /** Python's {@code None}. */
    static final Object NONE = new Object() {
        @Override
        public String toString() {
            return "None";
        }
    };

    private static final Pattern FLOAT = Pattern.compile(
            "[+-]?(?:(?:\\d(?:_?\\d)*(?:\\.(?:\\d(?:_?\\d)*)?)?|\\.\\d(?:_?\\d)*)(?:[eE][+-]?\\d(?:_?\\d)*)?"
                    + "|(?i:inf|infinity|nan))");

    private PythonValues() {}

    /** Python's {@code str.isspace()} for one char (Unicode whitespace, non-breaking spaces included). */
    static boolean isSpace(char c) {
        return Character.isWhitespace(c) || Character.isSpaceChar(c) || c == '\u0085';
    }

    /** {@code s.strip()}. */
    static String strip(String s) {
        int a = 0;
        int b = s.length();
        while (a < b && isSpace(s.charAt(a))) a++;
        while (b > a && isSpace(s.charAt(b - 1))) b--;
        return s.substring(a, b);
    }

    /** {@code s.strip(chars)}: every char of {@code chars} removed from both ends. */
    static String strip(String s, String chars) {
        int a = 0;
        int b = s.length();
        while (a < b && chars.indexOf(s.charAt(a)) >= 0) a++;
        while (b > a && chars.indexOf(s.charAt(b - 1)) >= 0) b--;
        return s.substring(a, b);
    }

    /** {@code float(s)}, or null where Python raises {@code ValueError}. */
    static Double parseFloat(String s) {
        if (s == null) return null;
        String t = strip(s);
        if (!FLOAT.matcher(t).matches()) return null;
        String lower = t.toLowerCase(Locale.ROOT);
        String body = lower.startsWith("+") || lower.startsWith("-") ? lower.substring(1) : lower;
        boolean negative = lower.startsWith("-");
        if (body.startsWith("inf")) return negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        if (body.equals("nan")) return Double.NaN;
        return Double.parseDouble(t.replace("_", ""));
    }

    /** {@code str(x)} of a value from {@link #evalLiteral} (or a Java string, number, list). */
    static String str(Object v) {
        if (v instanceof String s) return s;
        return repr(v);
    }

    /** {@code repr(x)}. */
    static String repr(Object v) {
        if (v == null || v == NONE) return "None";
        if (v instanceof String s) return PythonText.stringRepr(s);
        if (v instanceof Boolean b) return b ? "True" : "False";
        if (v instanceof Double d) return PythonText.floatRepr(d);
        if (v instanceof Float f) return PythonText.floatRepr(f);
        if (v instanceof Number n) return n.toString();
        if (v instanceof Tuple t) {
            if (t.items().size() == 1) return "(" + repr(t.items().get(0)) + ",)";
            return "(" + String.join(", ", t.items().stream().map(PythonValues::repr).toList()) + ")";
        }
        if (v instanceof List<?> l) return "[" + String.join(", ", l.stream().map(PythonValues::repr).toList()) + "]";
        return v.toString();
    }

    /** {@code eval(text)} for a literal; throws {@link IllegalArgumentException} where it is not one. */
    static Object evalLiteral(String text) {
        Parser p = new Parser(text);
        p.skipSpace();
        Object v = p.value();
        p.skipSpace();
        if (p.pos != text.length()) throw p.error("unexpected text");
        return v;
    }

    private static final class Parser {
        private final String s;
        private int pos;

        Parser(String s) {
            this.s = s;
        }

        IllegalArgumentException error(String why) {
            return new IllegalArgumentException(why + " at " + pos);
        }

        void skipSpace() {
            while (pos < s.length() && (s.charAt(pos) == ' ' || s.charAt(pos) == '\t' || s.charAt(pos) == '\n'
                    || s.charAt(pos) == '\r' || s.charAt(pos) == '\f')) {
                pos++;
            }
        }

        boolean eat(char c) {
            skipSpace();
            if (pos < s.length() && s.charAt(pos) == c) {
                pos++;
                return true;
            }
            return false;
        }

        Object value() {
            skipSpace();
            if (pos >= s.length()) throw error("unexpected end");
            char c = s.charAt(pos);
            if (c == '[') {
                pos++;
                return List.copyOf(sequence(']', new ArrayList<>()));
            }
            if (c == '(') {
                pos++;
                List<Object> items = new ArrayList<>();
                if (eat(')')) return new Tuple(items);
                items.add(value());
                if (eat(')')) return items.get(0); // parenthesised value, not a tuple
                if (!eat(',')) throw error("expected , or )");
                return new Tuple(sequence(')', items));
            }
            if (c == '+' || c == '-') {
                pos++;
                Object v = value();
                if (v instanceof Boolean b) v = b ? BigInteger.ONE : BigInteger.ZERO;
                if (v instanceof BigInteger i) return c == '-' ? i.negate() : i;
                if (v instanceof Double d) return c == '-' ? -d : d;
                throw error("bad operand for unary " + c);
            }
            if (c == '\'' || c == '"' || startsString()) return strings();
            if (Character.isDigit(c) || c == '.') return number();
            if (Character.isLetter(c) || c == '_') {
                int start = pos;
                while (pos < s.length() && (Character.isLetterOrDigit(s.charAt(pos)) || s.charAt(pos) == '_')) pos++;
                String word = s.substring(start, pos);
                switch (word) {
                    case "None":
                        return NONE;
                    case "True":
                        return Boolean.TRUE;
                    case "False":
                        return Boolean.FALSE;
                    default:
                        pos = start;
                        throw error("name '" + word + "' is not defined");
                }
            }
            throw error("invalid syntax");
        }

        /** Items up to {@code close}, commas between, a trailing comma allowed; {@code items} may hold the first already. */
        List<Object> sequence(char close, List<Object> items) {
            while (true) {
                if (eat(close)) return items;
                items.add(value());
                if (eat(close)) return items;
                if (!eat(',')) throw error("expected , or " + close);
            }
        }

        boolean startsString() {
            int i = pos;
            while (i < s.length() && i - pos < 2 && "rRuU".indexOf(s.charAt(i)) >= 0) i++;
            return i > pos && i < s.length() && (s.charAt(i) == '\'' || s.charAt(i) == '"');
        }

        String strings() {
            StringBuilder out = new StringBuilder();
            do {
                out.append(oneString());
                skipSpace();
            } while (pos < s.length() && (s.charAt(pos) == '\'' || s.charAt(pos) == '"' || startsString()));
            return out.toString();
        }

        String oneString() {
            boolean raw = false;
            while ("rRuU".indexOf(s.charAt(pos)) >= 0) {
                if (Character.toLowerCase(s.charAt(pos)) == 'r') raw = true;
                pos++;
            }
            char q = s.charAt(pos);
            boolean triple = s.startsWith(String.valueOf(q).repeat(3), pos);
            String end = triple ? String.valueOf(q).repeat(3) : String.valueOf(q);
            pos += end.length();
            StringBuilder sb = new StringBuilder();
            while (true) {
                if (pos >= s.length()) throw error("unterminated string");
                if (s.startsWith(end, pos)) {
                    pos += end.length();
                    return sb.toString();
                }
                char c = s.charAt(pos++);
                if (c == '\n' && !triple) throw error("newline in string");
                if (c != '\\') {
                    sb.append(c);
                    continue;
                }
                if (pos >= s.length()) throw error("unterminated string");
                char e = s.charAt(pos++);
                if (raw) {
                    sb.append('\\').append(e);
                    continue;
                }
                switch (e) {
                    case '\n' -> { }
                    case '\\', '\'', '"' -> sb.append(e);
                    case 'n' -> sb.append('\n');
                    case 't' -> sb.append('\t');
                    case 'r' -> sb.append('\r');
                    case 'a' -> sb.append('\u0007');
                    case 'b' -> sb.append('\b');
                    case 'f' -> sb.append('\f');
                    case 'v' -> sb.append('\u000b');
                    case 'x' -> sb.appendCodePoint(hex(2));
                    case 'u' -> sb.appendCodePoint(hex(4));
                    case 'U' -> sb.appendCodePoint(hex(8));
                    default -> {
                        if (e >= '0' && e <= '7') {
                            int v = e - '0';
                            for (int k = 0; k < 2 && pos < s.length() && s.charAt(pos) >= '0' && s.charAt(pos) <= '7'; k++) {
                                v = v * 8 + (s.charAt(pos++) - '0');
                            }
                            sb.append((char) v);
                        } else {
                            sb.append('\\').append(e); // Python keeps unknown escapes as written
                        }
                    }
                }
            }
        }

        int hex(int n) {
            if (pos + n > s.length()) throw error("truncated escape");
            try {
                int v = Integer.parseUnsignedInt(s.substring(pos, pos + n), 16);
                pos += n;
                if (!Character.isValidCodePoint(v)) throw error("bad code point");
                return v;
            } catch (NumberFormatException e) {
                throw error("bad escape");
            }
        }

        Object number() {
            int start = pos;
            if (s.startsWith("0x", pos) || s.startsWith("0X", pos) || s.startsWith("0o", pos) || s.startsWith("0O", pos)
                    || s.startsWith("0b", pos) || s.startsWith("0B", pos)) {
                int radix = switch (Character.toLowerCase(s.charAt(pos + 1))) {
                    case 'x' -> 16;
                    case 'o' -> 8;
                    default -> 2;
                };
                pos += 2;
                int digits = pos;
                while (pos < s.length() && (Character.digit(s.charAt(pos), radix) >= 0 || s.charAt(pos) == '_')) pos++;
                try {
                    return new BigInteger(s.substring(digits, pos).replace("_", ""), radix);
                } catch (NumberFormatException e) {
                    throw error("invalid number");
                }
            }
            while (pos < s.length() && (Character.isDigit(s.charAt(pos)) || s.charAt(pos) == '_' || s.charAt(pos) == '.')) pos++;
            if (pos < s.length() && (s.charAt(pos) == 'e' || s.charAt(pos) == 'E')) {
                pos++;
                if (pos < s.length() && (s.charAt(pos) == '+' || s.charAt(pos) == '-')) pos++;
                while (pos < s.length() && (Character.isDigit(s.charAt(pos)) || s.charAt(pos) == '_')) pos++;
            }
            if (pos < s.length() && (Character.isLetter(s.charAt(pos)))) throw error("invalid number"); // 1j, 1L
            String t = s.substring(start, pos);
            if (!FLOAT.matcher(t).matches()) throw error("invalid number");
            if (t.indexOf('.') < 0 && t.indexOf('e') < 0 && t.indexOf('E') < 0) {
                String digits = t.replace("_", "");
                if (digits.length() > 1 && digits.startsWith("0") && !digits.matches("0+")) throw error("leading zeros");
                return new BigInteger(digits);
            }
            return Double.parseDouble(t.replace("_", ""));
        }
    }
}
