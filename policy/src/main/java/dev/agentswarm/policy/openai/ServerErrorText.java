package dev.agentswarm.policy.openai;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;

/**
 * Pulls the human-readable message out of an error body. Servers disagree on the shape: OpenAI,
 * newer vLLM and llama.cpp send {@code {"error":{"message":…}}}, SGLang and older vLLM
 * {@code {"object":"error","message":…}}, FastAPI validation {@code {"detail":…}} (a string or a
 * list of {@code {loc,msg}}), Ollama {@code {"error":"…"}}; proxies send HTML or plain text.
 */
final class ServerErrorText {

    /** Long enough for a validation error, short enough for a log line. */
    static final int MAX_CHARS = 500;

    private ServerErrorText() {}

    static String of(String body) {
        if (body == null || body.isBlank()) return "(empty body)";
        String found = null;
        try {
            JsonNode root = Json.parse(body);
            found = fromJson(root);
        } catch (Exception notJson) {
            // fall through to the raw body
        }
        return cut(found != null ? found : body.strip());
    }

    /** The message of a parsed error document, or null when it has none of the known shapes. */
    static String fromJson(JsonNode root) {
        if (root == null || !root.isObject()) return null;
        JsonNode error = root.get("error");
        if (error != null) {
            if (error.isTextual()) return error.textValue();
            if (error.isObject() && error.hasNonNull("message")) return text(error.get("message"));
            if (error.isObject()) return error.toString();
        }
        JsonNode detail = root.get("detail");
        if (detail != null && !detail.isNull()) return detail(detail);
        if (root.hasNonNull("message")) return text(root.get("message"));
        return null;
    }

    private static String detail(JsonNode detail) {
        if (detail.isTextual()) return detail.textValue();
        if (detail.isArray()) {
            StringBuilder sb = new StringBuilder();
            for (JsonNode d : detail) {
                if (sb.length() > 0) sb.append("; ");
                if (d.hasNonNull("msg")) {
                    if (d.has("loc")) sb.append(d.get("loc")).append(": ");
                    sb.append(text(d.get("msg")));
                } else {
                    sb.append(d);
                }
            }
            return sb.toString();
        }
        return detail.toString();
    }

    private static String text(JsonNode n) {
        return n.isTextual() ? n.textValue() : n.toString();
    }

    static String cut(String s) {
        String oneLine = s.strip();
        return oneLine.length() <= MAX_CHARS ? oneLine : oneLine.substring(0, MAX_CHARS) + "… ("
                + oneLine.length() + " chars)";
    }
}
