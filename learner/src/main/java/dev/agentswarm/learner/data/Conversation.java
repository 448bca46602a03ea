package dev.agentswarm.learner.data;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Role;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * One training conversation in the Hugging Face {@code messages} format (as TRL's SFTTrainer reads
 * it): {@code {"messages": [...], "tools": [...]}}, with OpenAI-style {@code tool_calls} whose
 * {@code arguments} may be a JSON object or a JSON string holding one.
 */
public record Conversation(List<Message> messages, List<ToolSpec> tools) {

    public Conversation {
        messages = List.copyOf(messages);
        tools = List.copyOf(tools);
    }

    /** Parses one record; a malformed one throws IllegalArgumentException saying where in it and why. */
    public static Conversation fromHuggingFace(JsonNode root) {
        if (root == null || !root.isObject()) throw new IllegalArgumentException("a line must be a JSON object");
        JsonNode msgs = root.get("messages");
        if (msgs == null || !msgs.isArray()) throw new IllegalArgumentException("\"messages\" (an array) is required");
        if (msgs.isEmpty()) throw new IllegalArgumentException("\"messages\" is empty");
        List<Message> messages = new ArrayList<>(msgs.size());
        for (int i = 0; i < msgs.size(); i++) {
            try {
                messages.add(message(msgs.get(i)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("messages[" + i + "]: " + e.getMessage(), e);
            }
        }
        List<ToolSpec> tools = new ArrayList<>();
        JsonNode toolsNode = root.get("tools");
        if (toolsNode != null && !toolsNode.isNull()) {
            if (!toolsNode.isArray()) throw new IllegalArgumentException("\"tools\" must be an array");
            for (int i = 0; i < toolsNode.size(); i++) {
                try {
                    tools.add(tool(toolsNode.get(i)));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("tools[" + i + "]: " + e.getMessage(), e);
                }
            }
        }
        return new Conversation(messages, tools);
    }

    /** The record as one JSONL line's object, arguments as JSON objects. */
    public ObjectNode toHuggingFace() {
        ObjectNode root = Json.object();
        ArrayNode msgs = root.putArray("messages");
        for (Message m : messages) {
            ObjectNode n = msgs.addObject();
            n.put("role", m.role().wire());
            n.put("content", m.content());
            if (!m.toolCalls().isEmpty()) {
                ArrayNode calls = n.putArray("tool_calls");
                for (ToolCall c : m.toolCalls()) {
                    ObjectNode call = calls.addObject();
                    call.put("id", c.id());
                    call.put("type", "function");
                    ObjectNode fn = call.putObject("function");
                    fn.put("name", c.name());
                    fn.set("arguments", c.arguments());
                }
            }
            if (m.toolCallId() != null) n.put("tool_call_id", m.toolCallId());
            if (m.name() != null) n.put("name", m.name());
        }
        if (!tools.isEmpty()) {
            ArrayNode ts = root.putArray("tools");
            for (ToolSpec t : tools) {
                ObjectNode fn = ts.addObject().put("type", "function").putObject("function");
                fn.put("name", t.name());
                fn.put("description", t.description());
                if (t.parameters() != null) fn.set("parameters", t.parameters());
            }
        }
        return root;
    }

    private static Message message(JsonNode n) {
        if (n == null || !n.isObject()) throw new IllegalArgumentException("a message must be an object");
        JsonNode roleNode = n.get("role");
        if (roleNode == null || !roleNode.isTextual()) throw new IllegalArgumentException("\"role\" (a string) is required");
        Role role = Role.fromWire(roleNode.textValue());
        String content = text(n.get("content"), "content");
        List<ToolCall> calls = new ArrayList<>();
        JsonNode callsNode = n.get("tool_calls");
        if (callsNode != null && !callsNode.isNull()) {
            if (role != Role.ASSISTANT) throw new IllegalArgumentException("only assistant messages carry tool_calls");
            if (!callsNode.isArray()) throw new IllegalArgumentException("\"tool_calls\" must be an array");
            for (int i = 0; i < callsNode.size(); i++) {
                try {
                    calls.add(toolCall(callsNode.get(i)));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("tool_calls[" + i + "]: " + e.getMessage(), e);
                }
            }
        }
        String toolCallId = n.hasNonNull("tool_call_id") ? n.get("tool_call_id").asText() : null;
        String name = n.hasNonNull("name") ? n.get("name").asText() : null;
        return new Message(role, content, calls, toolCallId, name);
    }

    /** Content may be absent or null (an assistant turn that only calls tools), a string, or a list of text parts. */
    private static String text(JsonNode content, String field) {
        if (content == null || content.isNull()) return "";
        if (content.isTextual()) return content.textValue();
        if (content.isArray()) {
            StringBuilder sb = new StringBuilder();
            for (JsonNode part : content) {
                JsonNode t = part.get("text");
                if (t == null || !t.isTextual()) throw new IllegalArgumentException("\"" + field + "\" parts must have a \"text\" string");
                sb.append(t.textValue());
            }
            return sb.toString();
        }
        throw new IllegalArgumentException("\"" + field + "\" must be a string, got " + content.getNodeType());
    }

    private static ToolCall toolCall(JsonNode n) {
        if (n == null || !n.isObject()) throw new IllegalArgumentException("a tool call must be an object");
        JsonNode fn = n.get("function");
        if (fn == null || !fn.isObject()) throw new IllegalArgumentException("\"function\" (an object) is required");
        JsonNode name = fn.get("name");
        if (name == null || !name.isTextual() || name.textValue().isBlank()) {
            throw new IllegalArgumentException("\"function.name\" (a string) is required");
        }
        JsonNode args = fn.get("arguments");
        if (args == null || args.isNull()) {
            args = Json.object();
        } else if (args.isTextual()) {
            try {
                args = Json.parse(args.textValue());
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException("\"function.arguments\" is a string but not JSON: "
                        + e.getOriginalMessage(), e);
            }
        }
        if (!args.isObject()) throw new IllegalArgumentException("\"function.arguments\" must be a JSON object");
        String id = n.hasNonNull("id") ? n.get("id").asText() : null;
        return new ToolCall(id, name.textValue(), args);
    }

    private static ToolSpec tool(JsonNode n) {
        if (n == null || !n.isObject()) throw new IllegalArgumentException("a tool must be an object");
        JsonNode fn = n.has("function") ? n.get("function") : n;
        JsonNode name = fn.get("name");
        if (name == null || !name.isTextual() || name.textValue().isBlank()) {
            throw new IllegalArgumentException("\"function.name\" (a string) is required");
        }
        String description = fn.hasNonNull("description") ? fn.get("description").asText() : "";
        JsonNode parameters = fn.get("parameters");
        if (parameters != null && !parameters.isNull() && !parameters.isObject()) {
            throw new IllegalArgumentException("\"function.parameters\" must be a JSON Schema object");
        }
        return new ToolSpec(name.textValue(), description, parameters == null || parameters.isNull() ? null : parameters);
    }
}
