package dev.agentswarm.environments.bfcl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.core.tool.ToolContext;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A question's functions as the tools of its episode, shown as BFCL shows them to function-calling
 * models: each description with its language hint; Java and JavaScript parameters turned into strings
 * that say which type they hold in source form (the model writes {@code "42L"}, {@code "[1, 2]"}); then
 * BFCL's types mapped to JSON Schema ({@code dict} → {@code object}, {@code float} → {@code number} with
 * a note, {@code tuple} → {@code array}, {@code any} → {@code string}). BFCL does not run the functions:
 * the episode ends with the calls as its answer; a tool called anyway only says so.
 */
final class BfclFunctions {

    private static final Map<String, String> TO_SCHEMA = Map.ofEntries(
            Map.entry("integer", "integer"), Map.entry("number", "number"), Map.entry("float", "number"),
            Map.entry("string", "string"), Map.entry("boolean", "boolean"), Map.entry("bool", "boolean"),
            Map.entry("array", "array"), Map.entry("list", "array"), Map.entry("dict", "object"),
            Map.entry("object", "object"), Map.entry("tuple", "array"), Map.entry("any", "string"),
            Map.entry("byte", "integer"), Map.entry("short", "integer"), Map.entry("long", "integer"),
            Map.entry("double", "number"), Map.entry("char", "string"), Map.entry("ArrayList", "array"),
            Map.entry("Array", "array"), Map.entry("HashMap", "object"), Map.entry("Hashtable", "object"),
            Map.entry("Queue", "array"), Map.entry("Stack", "array"), Map.entry("Any", "string"),
            Map.entry("String", "string"), Map.entry("Bigint", "integer"));

    static final String RECORDED = "(call recorded: the benchmark scores the calls; it does not run them)";

    private BfclFunctions() {}

    /** The tool the model sees for one of BFCL's function docs. */
    static ToolSpec spec(JsonNode doc, BfclCategory category) {
        ObjectNode f = doc.deepCopy();
        f.put("description", f.path("description").asText() + category.languageHint());
        JsonNode params = f.path("parameters");
        if (!params.isObject()) throw new IllegalArgumentException("function " + f.path("name").asText() + " has no parameters object");
        ObjectNode parameters = (ObjectNode) params;
        ObjectNode properties = parameters.has("properties") && parameters.get("properties").isObject()
                ? (ObjectNode) parameters.get("properties") : parameters.putObject("properties");
        if (category.language() != BfclChecker.Language.PYTHON) inSourceForm(properties, category.language());
        parameters.put("type", "object");
        toSchema(properties);
        return new ToolSpec(f.path("name").asText(), f.path("description").asText(), parameters);
    }

    /** Java and JavaScript values travel as strings of source, each described with the type it holds. */
    private static void inSourceForm(ObjectNode properties, BfclChecker.Language language) {
        String lang = language == BfclChecker.Language.JAVA ? "Java" : "JavaScript";
        for (Iterator<Map.Entry<String, JsonNode>> it = properties.fields(); it.hasNext(); ) {
            ObjectNode p = (ObjectNode) it.next().getValue();
            String type = p.path("type").asText();
            String description = p.path("description").asText();
            description += type.equals("any") ? " This parameter can be of any type of " + lang + " object in string representation."
                    : " This is " + lang + " " + type + " type parameter in string representation.";
            boolean list = language == BfclChecker.Language.JAVA ? type.equals("ArrayList") || type.equals("Array") : type.equals("array");
            if (list) {
                description += " The list elements are of type " + p.path("items").path("type").asText()
                        + "; they are not in string representation.";
                p.remove("items");
            }
            if (language == BfclChecker.Language.JAVASCRIPT && type.equals("dict") && p.has("properties")) {
                description += " The dictionary entries have the following schema; they are not in string representation. "
                        + dev.agentswarm.core.json.PythonText.dumps(p.get("properties"));
                p.remove("properties");
            }
            p.put("description", description);
            p.put("type", "string");
        }
    }

    /** BFCL's _cast_to_openai_type: types to JSON Schema, into properties and items as deep as BFCL goes. */
    private static void toSchema(ObjectNode properties) {
        for (Iterator<Map.Entry<String, JsonNode>> it = properties.fields(); it.hasNext(); ) {
            JsonNode node = it.next().getValue();
            if (!node.isObject()) continue;
            ObjectNode p = (ObjectNode) node;
            if (!p.has("type")) {
                p.put("type", "string");
            } else {
                String type = p.path("type").asText();
                if (type.equals("float")) {
                    p.put("format", "float");
                    p.put("description", p.path("description").asText() + " This is a float type value.");
                }
                p.put("type", TO_SCHEMA.getOrDefault(type, "string"));
            }
            String type = p.path("type").asText();
            if (!type.equals("array") && !type.equals("object")) continue;
            if (p.path("properties").isObject()) {
                toSchema((ObjectNode) p.get("properties"));
            } else if (p.path("items").isObject()) {
                ObjectNode items = (ObjectNode) p.get("items");
                items.put("type", TO_SCHEMA.getOrDefault(items.path("type").asText(), "string"));
                if (items.path("type").asText().equals("array") && items.path("items").isObject()) {
                    ObjectNode inner = (ObjectNode) items.get("items");
                    inner.put("type", TO_SCHEMA.getOrDefault(inner.path("type").asText(), "string"));
                } else if (items.path("type").asText().equals("object") && items.path("properties").isObject()) {
                    toSchema((ObjectNode) items.get("properties"));
                }
            }
        }
    }

    /** The tools of a question: calling one only records the call. */
    static List<Tool> tools(List<JsonNode> docs, BfclCategory category) {
        return docs.stream().map(d -> (Tool) new Function(spec(d, category))).toList();
    }

    private record Function(ToolSpec spec) implements Tool {
        @Override
        public CompletionStage<String> invoke(JsonNode arguments, ToolContext context) {
            return CompletableFuture.completedFuture(RECORDED);
        }

        @Override
        public boolean idempotent(JsonNode arguments) {
            return true;
        }
    }
}
