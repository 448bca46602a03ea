package dev.agentswarm.core.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Checks a JSON value against the subset of JSON Schema that function-calling tool specs use:
 * {@code type} (one name or a list, which is how nullable fields are written), {@code properties},
 * {@code required}, {@code additionalProperties} (false or a schema), {@code enum}, {@code const},
 * {@code items} (one schema or a positional list), {@code minItems}/{@code maxItems},
 * {@code minLength}/{@code maxLength}, {@code pattern}, {@code minimum}/{@code maximum}/
 * {@code exclusiveMinimum}/{@code exclusiveMaximum} (number or draft-4 boolean form),
 * {@code anyOf}/{@code oneOf}/{@code allOf}, and OpenAPI's {@code nullable: true}.
 *
 * <p>Every violation is one line naming the path of the offending value, e.g.
 * {@code arguments.count: expected integer, got string "3"}, because the lines go back to the
 * model verbatim and it has to know which field to fix. Unknown keywords and unknown type names
 * are ignored (a schema quirk must not make a tool uncallable). Never throws, whatever the input.
 * Thread-safe; the only state is a cache of compiled patterns.
 */
public final class JsonSchemaValidator {

    /** Deeper nesting is reported instead of followed: guards the stack against cyclic or hostile trees. */
    static final int MAX_DEPTH = 128;

    private static final int MAX_RENDERED_VALUE = 60;
    private static final int MAX_CACHED_PATTERNS = 1024;
    private static final Map<String, Optional<Pattern>> PATTERNS = new ConcurrentHashMap<>();

    private JsonSchemaValidator() {}

    /**
     * The violations of {@code value} against {@code schema}, in schema order; empty when valid.
     * {@code rootPath} names the value itself in the messages ({@code "arguments"} for tool calls).
     * A null or non-object schema accepts everything; a Java null value is treated as JSON null.
     */
    public static List<String> validate(JsonNode schema, JsonNode value, String rootPath) {
        List<String> out = new ArrayList<>(0);
        try {
            check(schema, value == null ? NullNode.instance : value, rootPath == null ? "" : rootPath, out, 0);
        } catch (RuntimeException | StackOverflowError e) {
            // Defensive only: a bug here must not turn into a failed tool call without an explanation.
            out.add(rootPath + ": could not be checked against the schema (" + e + ")");
        }
        return out;
    }

    private static void check(JsonNode schema, JsonNode v, String path, List<String> out, int depth) {
        if (schema == null || schema.isNull() || schema.isMissingNode()) return;
        if (schema.isBoolean()) {
            if (!schema.booleanValue()) out.add(path + ": no value is allowed here");
            return;
        }
        if (!schema.isObject()) return;
        if (depth > MAX_DEPTH) {
            out.add(path + ": nested too deeply to check (more than " + MAX_DEPTH + " levels)");
            return;
        }
        if (v.isNull() && schema.path("nullable").asBoolean(false)) return;

        JsonNode type = schema.get("type");
        if (type != null && !typeMatches(type, v)) {
            // The other keywords would only repeat the same mistake in other words.
            out.add(path + ": expected " + describeType(type) + ", got " + describeValue(v));
            return;
        }

        JsonNode constant = schema.get("const");
        if (constant != null && !jsonEquals(constant, v)) {
            out.add(path + ": expected " + render(constant) + ", got " + render(v));
        }
        JsonNode allowed = schema.get("enum");
        if (allowed != null && allowed.isArray()) {
            boolean found = false;
            for (JsonNode a : allowed) {
                if (jsonEquals(a, v)) {
                    found = true;
                    break;
                }
            }
            if (!found) out.add(path + ": expected one of " + allowed + ", got " + render(v));
        }

        if (v.isTextual()) {
            checkString(schema, v.textValue(), path, out);
        } else if (v.isNumber()) {
            checkNumber(schema, v, path, out);
        } else if (v.isObject()) {
            checkObject(schema, v, path, out, depth);
        } else if (v.isArray()) {
            checkArray(schema, v, path, out, depth);
        }

        JsonNode allOf = schema.get("allOf");
        if (allOf != null && allOf.isArray()) {
            for (JsonNode sub : allOf) check(sub, v, path, out, depth + 1);
        }
        JsonNode anyOf = schema.get("anyOf");
        if (anyOf != null && anyOf.isArray() && anyOf.size() > 0) checkAlternatives(anyOf, false, v, path, out, depth);
        JsonNode oneOf = schema.get("oneOf");
        if (oneOf != null && oneOf.isArray() && oneOf.size() > 0) checkAlternatives(oneOf, true, v, path, out, depth);
    }

    private static void checkString(JsonNode schema, String s, String path, List<String> out) {
        JsonNode minLength = schema.get("minLength");
        JsonNode maxLength = schema.get("maxLength");
        if ((minLength != null && minLength.isNumber()) || (maxLength != null && maxLength.isNumber())) {
            // Lengths count code points as JSON Schema says, not UTF-16 units.
            int n = s.codePointCount(0, s.length());
            if (minLength != null && minLength.isNumber() && n < minLength.asDouble()) {
                out.add(path + ": expected at least " + minLength.asLong() + " characters, got " + n);
            }
            if (maxLength != null && maxLength.isNumber() && n > maxLength.asDouble()) {
                out.add(path + ": expected at most " + maxLength.asLong() + " characters, got " + n);
            }
        }
        JsonNode pattern = schema.get("pattern");
        if (pattern != null && pattern.isTextual()) {
            Pattern p = compile(pattern.textValue());
            // Patterns are unanchored in JSON Schema: "^[a-z]+$" anchors itself, "[0-9]" matches anywhere.
            if (p != null && !p.matcher(s).find()) {
                out.add(path + ": " + render(s) + " does not match pattern " + render(pattern.textValue()));
            }
        }
    }

    private static void checkNumber(JsonNode schema, JsonNode v, String path, List<String> out) {
        BigDecimal x = decimal(v);
        if (x == null) return;
        JsonNode exMin = schema.get("exclusiveMinimum");
        JsonNode exMax = schema.get("exclusiveMaximum");
        boolean draft4ExMin = exMin != null && exMin.isBoolean() && exMin.booleanValue();
        boolean draft4ExMax = exMax != null && exMax.isBoolean() && exMax.booleanValue();
        BigDecimal min = decimal(schema.get("minimum"));
        if (min != null) {
            int c = x.compareTo(min);
            if (draft4ExMin ? c <= 0 : c < 0) {
                out.add(path + ": expected a number " + (draft4ExMin ? "> " : ">= ") + plain(min) + ", got " + render(v));
            }
        }
        BigDecimal max = decimal(schema.get("maximum"));
        if (max != null) {
            int c = x.compareTo(max);
            if (draft4ExMax ? c >= 0 : c > 0) {
                out.add(path + ": expected a number " + (draft4ExMax ? "< " : "<= ") + plain(max) + ", got " + render(v));
            }
        }
        BigDecimal exclusiveMin = exMin != null && exMin.isNumber() ? decimal(exMin) : null;
        if (exclusiveMin != null && x.compareTo(exclusiveMin) <= 0) {
            out.add(path + ": expected a number > " + plain(exclusiveMin) + ", got " + render(v));
        }
        BigDecimal exclusiveMax = exMax != null && exMax.isNumber() ? decimal(exMax) : null;
        if (exclusiveMax != null && x.compareTo(exclusiveMax) >= 0) {
            out.add(path + ": expected a number < " + plain(exclusiveMax) + ", got " + render(v));
        }
    }

    private static void checkObject(JsonNode schema, JsonNode v, String path, List<String> out, int depth) {
        JsonNode required = schema.get("required");
        if (required != null && required.isArray()) {
            for (JsonNode r : required) {
                if (r.isTextual() && !v.has(r.textValue())) {
                    out.add(child(path, r.textValue()) + ": required field is missing");
                }
            }
        }
        JsonNode properties = schema.get("properties");
        boolean hasProperties = properties != null && properties.isObject();
        if (hasProperties) {
            for (Map.Entry<String, JsonNode> p : properties.properties()) {
                JsonNode field = v.get(p.getKey());
                if (field != null) check(p.getValue(), field, child(path, p.getKey()), out, depth + 1);
            }
        }
        JsonNode additional = schema.get("additionalProperties");
        if (additional == null || (additional.isBoolean() && additional.booleanValue()) || !(additional.isBoolean() || additional.isObject())) {
            return;
        }
        for (Map.Entry<String, JsonNode> f : v.properties()) {
            if (hasProperties && properties.has(f.getKey())) continue;
            if (additional.isBoolean()) {
                out.add(child(path, f.getKey()) + ": unexpected field; allowed fields: " + fieldNames(properties));
            } else {
                check(additional, f.getValue(), child(path, f.getKey()), out, depth + 1);
            }
        }
    }

    private static void checkArray(JsonNode schema, JsonNode v, String path, List<String> out, int depth) {
        int n = v.size();
        JsonNode minItems = schema.get("minItems");
        if (minItems != null && minItems.isNumber() && n < minItems.asDouble()) {
            out.add(path + ": expected at least " + minItems.asLong() + " items, got " + n);
        }
        JsonNode maxItems = schema.get("maxItems");
        if (maxItems != null && maxItems.isNumber() && n > maxItems.asDouble()) {
            out.add(path + ": expected at most " + maxItems.asLong() + " items, got " + n);
        }
        JsonNode items = schema.get("items");
        if (items == null) return;
        if (items.isArray()) {
            // Draft-4 tuple form: one schema per position, extra elements unconstrained.
            for (int i = 0; i < n && i < items.size(); i++) check(items.get(i), v.get(i), path + "[" + i + "]", out, depth + 1);
        } else {
            for (int i = 0; i < n; i++) check(items, v.get(i), path + "[" + i + "]", out, depth + 1);
        }
    }

    private static void checkAlternatives(JsonNode alternatives, boolean exactlyOne, JsonNode v, String path,
                                          List<String> out, int depth) {
        List<List<String>> failures = new ArrayList<>(alternatives.size());
        List<Integer> matching = new ArrayList<>(2);
        int i = 0;
        for (JsonNode alt : alternatives) {
            i++;
            List<String> sub = new ArrayList<>(0);
            check(alt, v, path, sub, depth + 1);
            if (sub.isEmpty()) {
                matching.add(i);
                if (!exactlyOne) return;
            }
            failures.add(sub);
        }
        String keyword = exactlyOne ? "oneOf" : "anyOf";
        if (matching.isEmpty()) {
            StringBuilder sb = new StringBuilder(path).append(": matches none of the ").append(keyword).append(" alternatives (");
            for (int k = 0; k < failures.size(); k++) {
                if (k > 0) sb.append("; ");
                sb.append("alternative ").append(k + 1).append(": ");
                List<String> f = failures.get(k);
                for (int j = 0; j < f.size(); j++) {
                    if (j > 0) sb.append(", ");
                    sb.append(relative(path, f.get(j)));
                }
            }
            out.add(sb.append(')').toString());
        } else if (matching.size() > 1) {
            out.add(path + ": matches " + matching.size() + " of the oneOf alternatives " + matching + ", expected exactly one");
        }
    }

    /** A nested violation without the path prefix it shares with its parent, so the line stays readable. */
    private static String relative(String path, String violation) {
        if (violation.startsWith(path + ": ")) return violation.substring(path.length() + 2);
        return violation;
    }

    private static boolean typeMatches(JsonNode type, JsonNode v) {
        if (type.isTextual()) return typeMatches(type.textValue(), v);
        if (type.isArray()) {
            if (type.size() == 0) return true;
            for (JsonNode t : type) {
                if (!t.isTextual() || typeMatches(t.textValue(), v)) return true;
            }
            return false;
        }
        return true;
    }

    private static boolean typeMatches(String type, JsonNode v) {
        switch (type) {
            case "string": return v.isTextual();
            case "number": return v.isNumber();
            case "integer": return isInteger(v);
            case "boolean": return v.isBoolean();
            case "object": return v.isObject();
            case "array": return v.isArray();
            case "null": return v.isNull();
            default: return true; // unknown type names constrain nothing
        }
    }

    /** 3 and 3.0 are both integers (JSON Schema draft 6 and later); 3.5 is not. */
    private static boolean isInteger(JsonNode v) {
        if (v.isIntegralNumber()) return true;
        if (!v.isNumber()) return false;
        if (v.isDouble() || v.isFloat()) {
            double d = v.doubleValue();
            return !Double.isInfinite(d) && d == Math.rint(d);
        }
        BigDecimal d = decimal(v);
        return d != null && (d.signum() == 0 || d.stripTrailingZeros().scale() <= 0);
    }

    private static String describeType(JsonNode type) {
        if (type.isTextual()) return type.textValue();
        StringBuilder sb = new StringBuilder();
        int n = type.size();
        for (int i = 0; i < n; i++) {
            if (i > 0) sb.append(i == n - 1 ? " or " : ", ");
            sb.append(type.get(i).asText());
        }
        return sb.toString();
    }

    /** The JSON kind of a value and, for scalars, the value: {@code string "3"}, {@code number 3.5}. */
    static String describeValue(JsonNode v) {
        if (v.isTextual()) return "string " + render(v);
        if (v.isIntegralNumber() || isInteger(v)) return "integer " + render(v);
        if (v.isNumber()) return "number " + render(v);
        if (v.isBoolean()) return "boolean " + v.booleanValue();
        if (v.isNull()) return "null";
        if (v.isObject()) return "object";
        if (v.isArray()) return "array";
        return v.getNodeType().toString().toLowerCase(Locale.ROOT);
    }

    /** A value as JSON, cut short so a huge argument cannot flood the error message. */
    static String render(JsonNode v) {
        String s = v.toString();
        return s.length() <= MAX_RENDERED_VALUE ? s : s.substring(0, MAX_RENDERED_VALUE) + "…";
    }

    private static String render(String s) {
        return render(TextNode.valueOf(s));
    }

    private static String plain(BigDecimal d) {
        return d.stripTrailingZeros().toPlainString();
    }

    private static BigDecimal decimal(JsonNode n) {
        if (n == null || !n.isNumber()) return null;
        if ((n.isDouble() || n.isFloat()) && !Double.isFinite(n.doubleValue())) return null;
        try {
            return n.decimalValue();
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** Equality as JSON means it: numbers by value (1 == 1.0), objects regardless of key order. */
    private static boolean jsonEquals(JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) {
            BigDecimal x = decimal(a);
            BigDecimal y = decimal(b);
            return x != null && y != null ? x.compareTo(y) == 0 : a.equals(b);
        }
        if (a.isArray() && b.isArray()) {
            if (a.size() != b.size()) return false;
            for (int i = 0; i < a.size(); i++) {
                if (!jsonEquals(a.get(i), b.get(i))) return false;
            }
            return true;
        }
        if (a.isObject() && b.isObject()) {
            if (a.size() != b.size()) return false;
            for (Map.Entry<String, JsonNode> e : a.properties()) {
                JsonNode other = b.get(e.getKey());
                if (other == null || !jsonEquals(e.getValue(), other)) return false;
            }
            return true;
        }
        return a.equals(b);
    }

    /** {@code parent.name}, or {@code parent["odd name"]} when the name is not a plain identifier. */
    private static String child(String parent, String name) {
        boolean plain = !name.isEmpty();
        for (int i = 0; i < name.length() && plain; i++) {
            char c = name.charAt(i);
            plain = c == '_' || c == '-' || c == '$' || (c < 128 && Character.isLetterOrDigit(c));
        }
        if (plain) return parent.isEmpty() ? name : parent + "." + name;
        return parent + "[" + TextNode.valueOf(name) + "]";
    }

    private static String fieldNames(JsonNode properties) {
        if (properties == null || !properties.isObject() || properties.size() == 0) return "(none)";
        StringBuilder sb = new StringBuilder();
        for (Iterator<String> it = properties.fieldNames(); it.hasNext(); ) {
            if (sb.length() > 0) sb.append(", ");
            sb.append(it.next());
        }
        return sb.toString();
    }

    /** Compiled once per distinct pattern; an invalid pattern is a schema bug and is ignored (null). */
    private static Pattern compile(String regex) {
        Optional<Pattern> cached = PATTERNS.get(regex);
        if (cached != null) return cached.orElse(null);
        Optional<Pattern> p;
        try {
            p = Optional.of(Pattern.compile(regex));
        } catch (PatternSyntaxException e) {
            p = Optional.empty();
        }
        if (PATTERNS.size() < MAX_CACHED_PATTERNS) PATTERNS.putIfAbsent(regex, p);
        return p.orElse(null);
    }
}
