package dev.agentswarm.core.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.ToolSpec;

/** Building tool specs for the common shape, one required string argument and nothing else, and reading it back. */
public final class ToolSpecs {

    private ToolSpecs() {}

    public static ToolSpec oneString(String name, String description, String field, String fieldDescription) {
        ObjectNode s = Json.object().put("type", "object");
        s.putObject("properties").putObject(field).put("type", "string").put("description", fieldDescription);
        s.putArray("required").add(field);
        s.put("additionalProperties", false);
        return new ToolSpec(name, description, s);
    }

    /**
     * The string argument {@code field} of a call. The executor validates arguments against the spec
     * first; this guards a tool's direct callers with the same message.
     */
    public static String string(JsonNode arguments, String field) {
        JsonNode v = arguments == null ? null : arguments.get(field);
        if (v == null || !v.isTextual()) throw new IllegalArgumentException("argument '" + field + "' (a string) is required");
        return v.textValue();
    }
}
