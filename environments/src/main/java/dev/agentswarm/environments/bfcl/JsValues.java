package dev.agentswarm.environments.bfcl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * BFCL's reading of a JavaScript argument, which a function-calling model writes as a string of source
 * ({@code "[60, 30]"}, {@code "{'limit': 5}"}): converted as BFCL's converter does, with its regular
 * expressions' limits kept (an array ends at its first {@code ]}, an object at its first {@code }}).
 * A string that does not match its type's form is returned unchanged.
 */
final class JsValues {

    private static final int FLAGS = Pattern.UNIX_LINES | Pattern.UNICODE_CHARACTER_CLASS;
    private static final Pattern INTEGER = Pattern.compile("^-?\\d+$", FLAGS);
    private static final Pattern FLOAT = Pattern.compile("^-?\\d+(\\.\\d+)?$", FLAGS);
    private static final Pattern BIGINT = Pattern.compile("^-?\\d+n$", FLAGS);
    private static final Pattern ARRAY_2D = Pattern.compile(
            "\\[\\s*\\[.*?\\]\\s*(,\\s*\\[.*?\\]\\s*)*\\]|\\bnew\\s+Array\\(\\s*\\[.*?\\]\\s*(,\\s*\\[.*?\\]\\s*)*\\)", FLAGS);
    private static final Pattern INNER = Pattern.compile("\\[(.*?)\\]", FLAGS);
    private static final Pattern ARRAY = Pattern.compile("\\[(.*?)\\]|\\bnew\\s+Array\\((.*?)\\)", FLAGS);
    private static final Pattern OBJECT = Pattern.compile("\\{(.*?)\\}", FLAGS);
    private static final Pattern PAIR = Pattern.compile("([^:]+):\\s*(.*?)(?:,\\s*(?=[^,]+:)|$)", FLAGS);

    private JsValues() {}

    /** {@code source} as a value of JavaScript type {@code type} (array items of {@code itemType}, or null). */
    static JsonNode convert(String source, String type, String itemType) {
        try {
            return switch (type) {
                case "String" -> quoted(source) ? text(JavaValues.inner(source)) : text(source);
                case "integer" -> INTEGER.matcher(source).lookingAt() ? BfclValues.integer(new BigInteger(source.strip())) : text(source);
                case "float" -> FLOAT.matcher(source).lookingAt() ? BfclValues.decimal(Double.parseDouble(source.strip())) : text(source);
                case "Bigint" -> BIGINT.matcher(source).lookingAt()
                        ? BfclValues.integer(new BigInteger(source.strip().substring(0, source.strip().length() - 1))) : text(source);
                case "Boolean" -> source.equals("true") || source.equals("false") ? BfclValues.bool(source.equals("true")) : text(source);
                case "dict" -> object(source);
                case "array" -> array(source, itemType);
                case "any" -> text(source);
                default -> throw new IllegalArgumentException("unsupported JavaScript type " + type);
            };
        } catch (NumberFormatException e) {
            return text(source);
        }
    }

    private static boolean quoted(String s) {
        return (s.startsWith("\"") && s.endsWith("\"")) || (s.startsWith("'") && s.endsWith("'"));
    }

    private static JsonNode array(String source, String itemType) {
        String code = source.strip();
        try {
            Matcher twoD = ARRAY_2D.matcher(code);
            if (twoD.lookingAt()) {
                ArrayNode out = BfclValues.list();
                Matcher inner = INNER.matcher(twoD.group(0));
                boolean first = true;
                while (inner.find()) {
                    String elements = inner.group(1).strip();
                    if (first && elements.startsWith("[")) elements = elements.substring(1);
                    first = false;
                    ArrayNode row = BfclValues.list();
                    for (String e : elements.split(",", -1)) row.add(value(e.strip()));
                    out.add(row);
                }
                return out;
            }
            Matcher m = ARRAY.matcher(code);
            if (!m.lookingAt()) return text(code);
            String body = m.group(1) != null ? m.group(1).strip() : m.group(2) != null ? m.group(2).strip() : "";
            ArrayNode out = BfclValues.list();
            if (body.isEmpty()) return out;
            for (String e : body.split(",", -1)) {
                String part = e.strip();
                if (itemType == null) out.add(value(part));
                else out.add(part.startsWith("'") || part.startsWith("\"") ? convert(part, itemType, "String") : convert(part, itemType, null));
            }
            return out;
        } catch (RuntimeException e) { // BFCL returns the code as it was when its parsing raises
            return text(code);
        }
    }

    private static JsonNode object(String source) {
        String code = source.strip();
        if (code.equals("{}")) return BfclValues.NODES.objectNode();
        Matcher m = OBJECT.matcher(code);
        if (!m.lookingAt()) return text(code);
        try {
            ObjectNode out = BfclValues.NODES.objectNode();
            Matcher pair = PAIR.matcher(m.group(1));
            while (pair.find()) {
                String key = stripChars(pair.group(1).strip(), "'\"");
                String value = pair.group(2).strip();
                if (value.startsWith("[") && value.endsWith("]")) out.set(key, array(value, null));
                else if (value.startsWith("{") && value.endsWith("}")) out.set(key, object(value));
                else out.set(key, value(stripChars(value, "'\"")));
            }
            return out;
        } catch (RuntimeException e) {
            return text(code);
        }
    }

    /** BFCL's parse_js_value: a boolean, a quoted string's inside, Python's int, then float, else the text. */
    static JsonNode value(String raw) {
        String t = raw.strip();
        if (t.equals("true") || t.equals("false")) return BfclValues.bool(t.equals("true"));
        if (quoted(t)) return text(JavaValues.inner(t));
        return PythonNumbers.parse(t);
    }

    /** Python's {@code s.strip(chars)}. */
    static String stripChars(String s, String chars) {
        int from = 0;
        int to = s.length();
        while (from < to && chars.indexOf(s.charAt(from)) >= 0) from++;
        while (to > from && chars.indexOf(s.charAt(to - 1)) >= 0) to--;
        return s.substring(from, to);
    }

    private static JsonNode text(String s) {
        return BfclValues.text(s);
    }
}
