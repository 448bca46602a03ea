package dev.agentswarm.policy.chat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolSpec;
import java.util.List;

/**
 * Our protocol's messages and tool specs as the message dicts Hugging Face chat templates read.
 * An assistant's native calls become {@code tool_calls: [{"type":"function","id":…,"function":
 * {"name":…,"arguments":{…}}}]} with the arguments as an object (Qwen3's and Llama-3.1's templates
 * print an object with {@code tojson} and a string as is); a tool result becomes
 * {@code {"role":"tool","content":…,"tool_call_id":…,"name":…}} (Qwen3 wraps it in
 * {@code <tool_response>}, Llama-3.1 in an {@code ipython} turn).
 */
public final class HfMessages {

    private HfMessages() {}

    public static ArrayNode messages(List<Message> messages) {
        ArrayNode out = Json.MAPPER.createArrayNode();
        for (Message m : messages) out.add(message(m));
        return out;
    }

    public static ObjectNode message(Message m) {
        ObjectNode o = Json.MAPPER.createObjectNode();
        o.put("role", m.role().wire());
        o.put("content", m.content());
        if (!m.toolCalls().isEmpty()) {
            ArrayNode calls = o.putArray("tool_calls");
            for (ToolCall c : m.toolCalls()) {
                ObjectNode call = calls.addObject();
                call.put("type", "function");
                if (c.id() != null) call.put("id", c.id());
                ObjectNode fn = call.putObject("function");
                fn.put("name", c.name());
                fn.set("arguments", c.arguments() == null ? Json.MAPPER.createObjectNode() : c.arguments());
            }
        }
        if (m.toolCallId() != null) o.put("tool_call_id", m.toolCallId());
        if (m.name() != null) o.put("name", m.name());
        return o;
    }

    /** Tool specs as {@code [{"type":"function","function":{"name","description","parameters"}}]}; null when there are none. */
    public static ArrayNode tools(List<ToolSpec> tools) {
        if (tools == null || tools.isEmpty()) return null;
        ArrayNode out = Json.MAPPER.createArrayNode();
        for (ToolSpec t : tools) {
            ObjectNode fn = out.addObject().put("type", "function").putObject("function");
            fn.put("name", t.name());
            fn.put("description", t.description());
            if (t.parameters() != null) fn.set("parameters", t.parameters());
        }
        return out;
    }
}
