package dev.agentswarm.core.tool;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The fields a tool expects, in a few lines a model can act on; appended to invalid-argument
 * errors so that the model does not need to scroll back to the tool list to fix its call.
 */
final class SchemaSummary {

    private static final int MAX_DESCRIPTION = 100;
    private static final int MAX_RAW_SCHEMA = 300;

    private SchemaSummary() {}

    static String describe(JsonNode schema) {
        JsonNode properties = schema == null ? null : schema.get("properties");
        if (properties == null || !properties.isObject() || properties.size() == 0) {
            if (schema == null || schema.isNull() || schema.isMissingNode()) return "expected arguments: any JSON object";
            String raw = schema.toString();
            return "expected arguments: " + (raw.length() <= MAX_RAW_SCHEMA ? raw : raw.substring(0, MAX_RAW_SCHEMA) + "…");
        }
        Set<String> required = new HashSet<>();
        JsonNode r = schema.get("required");
        if (r != null && r.isArray()) {
            for (JsonNode n : r) if (n.isTextual()) required.add(n.textValue());
        }
        StringBuilder sb = new StringBuilder("expected arguments:");
        for (Map.Entry<String, JsonNode> p : properties.properties()) {
            sb.append("\n- ").append(p.getKey()).append(": ").append(kind(p.getValue()))
                    .append(required.contains(p.getKey()) ? ", required" : ", optional");
            JsonNode d = p.getValue().get("description");
            if (d != null && d.isTextual() && !d.textValue().isBlank()) {
                String text = d.textValue();
                sb.append(" — ").append(text.length() <= MAX_DESCRIPTION ? text : text.substring(0, MAX_DESCRIPTION) + "…");
            }
        }
        JsonNode additional = schema.get("additionalProperties");
        if (additional != null && additional.isBoolean() && !additional.booleanValue()) sb.append("\n(no other fields allowed)");
        return sb.toString();
    }

    /** {@code string}, {@code integer or null}, {@code one of ["a","b"]}, {@code array of string}. */
    private static String kind(JsonNode s) {
        if (s == null || !s.isObject()) return "any";
        JsonNode e = s.get("enum");
        if (e != null && e.isArray()) return "one of " + e;
        JsonNode c = s.get("const");
        if (c != null) return "exactly " + c;
        JsonNode t = s.get("type");
        String type;
        if (t == null) {
            type = s.has("anyOf") || s.has("oneOf") ? "one of several shapes" : "any";
        } else if (t.isArray()) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < t.size(); i++) {
                if (i > 0) sb.append(" or ");
                sb.append(t.get(i).asText());
            }
            type = sb.toString();
        } else {
            type = t.asText();
        }
        if ("array".equals(type)) {
            JsonNode items = s.get("items");
            if (items != null && items.isObject() && items.has("type")) return "array of " + kind(items);
        }
        return type;
    }
}
