package dev.agentswarm.environments.bfcl;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;
import java.util.regex.Pattern;

/** Python's {@code int(t)}, else {@code float(t)}, else {@code t} itself: how BFCL's converters read an untyped value. */
final class PythonNumbers {

    // int(): optional sign, digits with single underscores between them, surrounding whitespace.
    private static final Pattern INT = Pattern.compile("\\s*[+-]?\\d+(_\\d+)*\\s*");
    // float(): decimal forms with an optional exponent, or inf/infinity/nan, any case.
    private static final Pattern FLOAT = Pattern.compile(
            "\\s*[+-]?((\\d+(_\\d+)*)?\\.?\\d+(_\\d+)*([eE][+-]?\\d+(_\\d+)*)?|\\d+(_\\d+)*\\.([eE][+-]?\\d+(_\\d+)*)?"
                    + "|(?i:inf|infinity|nan))\\s*");

    private PythonNumbers() {}

    static JsonNode parse(String t) {
        try {
            return parseOrFail(t);
        } catch (NumberFormatException e) {
            return BfclValues.text(t);
        }
    }

    private static JsonNode parseOrFail(String t) {
        if (INT.matcher(t).matches()) return BfclValues.integer(new BigInteger(t.strip().replace("_", "").replace("+", "")));
        if (FLOAT.matcher(t).matches()) {
            String s = t.strip().replace("_", "").toLowerCase(java.util.Locale.ROOT);
            double d = s.endsWith("nan") ? Double.NaN : s.endsWith("inf") || s.endsWith("infinity")
                    ? (s.startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY) : Double.parseDouble(s);
            return BfclValues.decimal(d);
        }
        return BfclValues.text(t);
    }
}
