package dev.agentswarm.environments.bfcl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.environments.Noise;
import dev.agentswarm.environments.Oracle;
import dev.agentswarm.environments.bfcl.BfclChecker.Language;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Answers a BFCL question with its first possible answer: each parameter gets its first acceptable
 * value (one that may be left out is left out when nothing else is listed), dictionaries key by key;
 * Java and JavaScript values are written as the source strings BFCL's converters read back
 * ({@code 42L}, {@code new ArrayList<>(Arrays.asList(...))}, {@code [1, 2]}). An irrelevance question is
 * answered in words; a relevance question with a call. Where BFCL's own checker cannot accept any
 * answer (a few questions, named in BENCHMARKS.md), the oracle fails as a model would.
 */
public final class BfclOracle implements Oracle {

    @Override
    public Step next(Task task, List<Message> conversation, Noise noise) {
        BfclCategory category = BfclCategory.parse(task.metadata().get(BfclTasks.CATEGORY));
        List<JsonNode> docs = BfclSuite.functions(task);
        if (category.relevanceOnly()) {
            if (!category.callWanted()) return Step.answer("", "None of the offered functions can do what was asked.");
            return Step.call("", new ToolCall("call-0", docs.get(0).path("name").asText(), Json.MAPPER.createObjectNode()));
        }
        ArrayNode answers = BfclSuite.groundTruth(task);
        List<ToolCall> calls = new ArrayList<>();
        for (JsonNode answer : answers) {
            String name = answer.fieldNames().next();
            JsonNode doc = docs.stream().filter(d -> d.path("name").asText().equals(name)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(task.id() + ": the possible answer calls " + name + ", which is not offered"));
            calls.add(new ToolCall("call-" + calls.size(), name, arguments(doc, answer.get(name), category.language())));
        }
        return new Step("", calls, null);
    }

    private static ObjectNode arguments(JsonNode doc, JsonNode expected, Language language) {
        ObjectNode args = Json.MAPPER.createObjectNode();
        JsonNode properties = doc.path("parameters").path("properties");
        for (Iterator<Map.Entry<String, JsonNode>> it = expected.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> p = it.next();
            JsonNode value = first(p.getValue());
            if (value == null) continue; // only "" listed: left out
            // A parameter the function does not declare is refused as unexpected: left out, which "" allows.
            if (!properties.has(p.getKey()) && p.getValue().isArray() && containsEmpty(p.getValue())) continue;
            JsonNode details = properties.path(p.getKey());
            String type = details.path("type").asText();
            String item = details.path("items").path("type").asText(null);
            JsonNode resolved = resolve(value, type, item, language);
            args.set(p.getKey(), switch (language) {
                case JAVA -> BfclValues.text(java(resolved, type, item));
                case JAVASCRIPT -> BfclValues.text(js(resolved, type, item));
                default -> resolved;
            });
        }
        return args;
    }

    /** The first acceptable value that is not "" (which only marks a parameter as one that may be left out); null if none. */
    private static JsonNode first(JsonNode accepted) {
        if (!accepted.isArray()) return null; // a bare string answer: BFCL reads "" in it as present, so leaving it out passes
        for (JsonNode a : accepted) if (!(a.isTextual() && a.asText().isEmpty())) return a;
        return null;
    }

    private static boolean containsEmpty(JsonNode accepted) {
        for (JsonNode a : accepted) if (a.isTextual() && a.asText().isEmpty()) return true;
        return false;
    }

    /** Dictionaries whose values list acceptable values become plain dictionaries; lists of them likewise. */
    private static JsonNode resolve(JsonNode value, String type, String item, Language language) {
        boolean dict = switch (language) {
            case JAVA -> type.equals("HashMap");
            default -> type.equals("dict");
        };
        if (dict && value.isObject()) return plainDict(value);
        if ((type.equals("array") || type.equals("ArrayList") || type.equals("Array")) && "dict".equals(item) && value.isArray()) {
            ArrayNode out = BfclValues.list();
            for (JsonNode d : value) out.add(d.isObject() ? plainDict(d) : d);
            return out;
        }
        return value;
    }

    private static ObjectNode plainDict(JsonNode dict) {
        ObjectNode out = Json.MAPPER.createObjectNode();
        for (Iterator<Map.Entry<String, JsonNode>> it = dict.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode v = first(e.getValue());
            if (v != null) out.set(e.getKey(), v);
        }
        return out;
    }

    /** A value as Java source, in the form BFCL's converter turns back into it. */
    static String java(JsonNode v, String type, String item) {
        if (v.isTextual()) {
            if (type.equals("ArrayList") || type.equals("Array") || type.equals("HashMap")) return v.asText();
            return v.asText(); // a String, or a name written where a value of another type is expected
        }
        return switch (type) {
            case "long" -> v.isIntegralNumber() ? v.bigIntegerValue() + "L" : v.toString();
            case "float" -> v.isNumber() ? Double.toString(v.doubleValue()) + "f" : v.toString();
            case "double" -> v.isNumber() ? Double.toString(v.doubleValue()) : v.toString();
            case "ArrayList" -> v.isArray() && v.isEmpty() ? "new ArrayList<>()" : "new ArrayList<>(Arrays.asList("
                    + elements(v, e -> javaItem(e, item, true), ", ") + "))";
            case "Array" -> "new " + (item == null ? "Object" : item) + "[]{" + elements(v, e -> javaItem(e, item, false), ", ") + "}";
            case "HashMap" -> "new HashMap<String, Object>() {{ " + puts(v) + "}}";
            default -> v.isBoolean() ? Boolean.toString(v.booleanValue()) : v.isTextual() ? v.asText() : v.toString();
        };
    }

    /** An element: an ArrayList's strings in quotes (BFCL cuts the first and last character), an array's without (BFCL keeps them). */
    private static String javaItem(JsonNode e, String item, boolean quoted) {
        if ("String".equals(item) || "char".equals(item)) return quoted ? "\"" + e.asText() + "\"" : e.asText();
        return java(e, item == null ? "any" : item, null);
    }

    private static String puts(JsonNode dict) {
        StringBuilder sb = new StringBuilder();
        for (Iterator<Map.Entry<String, JsonNode>> it = dict.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode v = e.getValue();
            String value = v.isTextual() ? "\"" + v.asText() + "\"" : v.isBoolean() ? Boolean.toString(v.booleanValue()) : v.toString();
            sb.append("put(\"").append(e.getKey()).append("\", ").append(value).append("); ");
        }
        return sb.toString();
    }

    /** A value as JavaScript source, in the form BFCL's converter turns back into it. */
    static String js(JsonNode v, String type, String item) {
        if (v.isTextual()) return v.asText();
        return switch (type) {
            case "float" -> v.isNumber() ? plain(v) : v.toString();
            case "Bigint" -> v.bigIntegerValue() + "n";
            case "array" -> "[" + elements(v, e -> jsItem(e, item), ", ") + "]";
            case "dict" -> "{" + fields(v) + "}";
            default -> v.isBoolean() ? Boolean.toString(v.booleanValue()) : v.isNumber() ? plain(v) : v.toString();
        };
    }

    private static String jsItem(JsonNode e, String item) {
        if (e.isTextual()) return "\"" + e.asText() + "\"";
        if (e.isArray()) return "[" + elements(e, x -> jsItem(x, null), ", ") + "]";
        if (e.isObject()) return "{" + fields(e) + "}";
        return e.isBoolean() ? Boolean.toString(e.booleanValue()) : e.isNumber() ? plain(e) : e.toString();
    }

    private static String fields(JsonNode dict) {
        List<String> out = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = dict.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            out.add("\"" + e.getKey() + "\": " + jsItem(e.getValue(), null));
        }
        return String.join(", ", out);
    }

    /** A number in plain decimals (BFCL's JavaScript float pattern takes no exponent); integral values without a point. */
    private static String plain(JsonNode n) {
        if (n.isIntegralNumber()) return n.bigIntegerValue().toString();
        return new BigDecimal(Double.toString(n.doubleValue())).stripTrailingZeros().toPlainString();
    }

    private static String elements(JsonNode list, java.util.function.Function<JsonNode, String> each, String sep) {
        List<String> out = new ArrayList<>();
        list.forEach(e -> out.add(each.apply(e)));
        return out.stream().collect(Collectors.joining(sep));
    }
}
