package dev.agentswarm.core.json;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.Iterator;
import java.util.Map;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * How Python writes a float and a JSON string, for the places that must produce Python's exact text:
 * chat templates' {@code tojson}, benchmark scorers that compare {@code str()} of values, prompts a
 * benchmark writes with {@code json.dumps}.
 */
public final class PythonText {

    private PythonText() {}

    /** {@code repr(x)} of a float: the shortest digits that read back as {@code x}, in Python's layout. */
    public static String floatRepr(double x) {
        if (Double.isNaN(x)) return "nan";
        if (Double.isInfinite(x)) return x > 0 ? "inf" : "-inf";
        if (x == 0) return (1 / x < 0) ? "-0.0" : "0.0";
        BigDecimal exact = new BigDecimal(x);
        BigDecimal shortest = exact;
        for (int p = 1; p <= 17; p++) {
            BigDecimal r = exact.round(new MathContext(p, RoundingMode.HALF_EVEN));
            if (r.doubleValue() == x) {
                shortest = r;
                break;
            }
        }
        shortest = shortest.stripTrailingZeros();
        String digits = shortest.unscaledValue().abs().toString();
        // value = 0.d1d2… × 10^decpt
        int decpt = digits.length() - shortest.scale();
        String sign = x < 0 ? "-" : "";
        if (decpt > -4 && decpt <= 16) {
            if (decpt <= 0) return sign + "0." + "0".repeat(-decpt) + digits;
            if (decpt >= digits.length()) return sign + digits + "0".repeat(decpt - digits.length()) + ".0";
            return sign + digits.substring(0, decpt) + "." + digits.substring(decpt);
        }
        int exp = decpt - 1;
        String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
        String e = Integer.toString(Math.abs(exp));
        return sign + mantissa + "e" + (exp < 0 ? "-" : "+") + (e.length() < 2 ? "0" + e : e);
    }

    /** A float as {@code json.dumps} writes it: {@code NaN}, {@code Infinity}, or its repr. */
    public static String jsonFloat(double x) {
        return Double.isNaN(x) ? "NaN" : Double.isInfinite(x) ? (x > 0 ? "Infinity" : "-Infinity") : floatRepr(x);
    }

    /** A string as {@code json.dumps} writes it, with everything outside printable ASCII escaped when {@code ensureAscii}. */
    public static void jsonString(StringBuilder sb, String s, boolean ensureAscii) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                default -> {
                    if (c < 0x20 || (ensureAscii && c > 0x7e)) sb.append(String.format("\\u%04x", (int) c));
                    else sb.append(c);
                }
            }
        }
        sb.append('"');
    }

    /** {@code repr(s)} of a string: single quotes unless it holds one and no double quote, as Python picks. */
    public static String stringRepr(String s) {
        char quote = s.indexOf('\'') >= 0 && s.indexOf('"') < 0 ? '"' : '\'';
        StringBuilder sb = new StringBuilder(s.length() + 2).append(quote);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c == quote) sb.append('\\').append(c);
                    else if (c < 0x20 || c == 0x7f) sb.append(String.format("\\x%02x", (int) c));
                    else sb.append(c);
                }
            }
        }
        return sb.append(quote).toString();
    }

    /** {@code json.dumps(value)} with Python's defaults: ", " and ": " between items, non-ASCII escaped, keys in their order. */
    public static String dumps(JsonNode value) {
        StringBuilder sb = new StringBuilder();
        write(value, sb, false);
        return sb.toString();
    }

    /** {@code repr(json.loads(...))} of a value: {@code None}, {@code True}, {@code 2.5}, {@code 'a'}, {@code [1, {'k': None}]}. */
    public static String repr(JsonNode value) {
        StringBuilder sb = new StringBuilder();
        write(value, sb, true);
        return sb.toString();
    }

    /** One walk for both: {@code json.dumps}'s text, or Python's {@code repr} of the decoded value. */
    private static void write(JsonNode v, StringBuilder sb, boolean repr) {
        if (v == null || v.isNull() || v.isMissingNode()) {
            sb.append(repr ? "None" : "null");
        } else if (v.isBoolean()) {
            sb.append(repr ? (v.booleanValue() ? "True" : "False") : String.valueOf(v.booleanValue()));
        } else if (v.isIntegralNumber()) {
            sb.append(v.bigIntegerValue());
        } else if (v.isNumber()) {
            sb.append(repr ? floatRepr(v.doubleValue()) : jsonFloat(v.doubleValue()));
        } else if (v.isTextual()) {
            text(sb, v.asText(), repr);
        } else if (v.isArray()) {
            sb.append('[');
            for (int i = 0; i < v.size(); i++) {
                if (i > 0) sb.append(", ");
                write(v.get(i), sb, repr);
            }
            sb.append(']');
        } else {
            sb.append('{');
            boolean first = true;
            for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (!first) sb.append(", ");
                first = false;
                text(sb, e.getKey(), repr);
                sb.append(": ");
                write(e.getValue(), sb, repr);
            }
            sb.append('}');
        }
    }

    private static void text(StringBuilder sb, String s, boolean repr) {
        if (repr) sb.append(stringRepr(s));
        else jsonString(sb, s, true);
    }
}
