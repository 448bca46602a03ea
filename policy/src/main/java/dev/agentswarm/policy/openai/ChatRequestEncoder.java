package dev.agentswarm.policy.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Role;
import dev.agentswarm.core.protocol.SamplingParams;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolSpec;
import java.util.List;
import java.util.Map;

/**
 * Builds the JSON body of a {@code POST /chat/completions} request. Optional fields are left out
 * rather than sent as null or defaults, because servers differ in what they accept: llama.cpp and
 * Ollama ignore fields they do not know, but strict validators reject a null where a value is typed.
 */
final class ChatRequestEncoder {

    private ChatRequestEncoder() {}

    static ObjectNode encode(CompletionRequest request, OpenAiSettings settings) {
        return encode(request, settings, FunctionNames.of(request.tools()));
    }

    /** With the function names to send for tools whose own names the API refuses ({@link FunctionNames}). */
    static ObjectNode encode(CompletionRequest request, OpenAiSettings settings, FunctionNames names) {
        ObjectNode body = Json.object();
        body.put("model", settings.model());
        ArrayNode messages = body.putArray("messages");
        for (Message m : request.messages()) messages.add(message(m, names));

        if (!request.tools().isEmpty()) {
            ArrayNode tools = body.putArray("tools");
            for (ToolSpec t : request.tools()) tools.add(tool(t, names));
            body.set("tool_choice", toolChoice(request.toolChoice(), names));
        }

        SamplingParams s = request.sampling();
        body.put("temperature", s.temperature());
        body.put("top_p", s.topP());
        // top_k is a vLLM/SGLang/llama.cpp extension; the OpenAI API itself rejects it.
        if (s.topK() > 0) body.put("top_k", s.topK());
        body.put("max_tokens", s.maxTokens());
        if (!s.stop().isEmpty()) {
            ArrayNode stop = body.putArray("stop");
            s.stop().forEach(stop::add);
        }
        if (s.seed() != null) body.put("seed", s.seed());

        if (settings.logprobs()) {
            body.put("logprobs", true);
            if (settings.topLogprobs() > 0) body.put("top_logprobs", settings.topLogprobs());
        }
        if (settings.returnTokenIds()) body.put("return_token_ids", true);
        // Streaming would change the response shape; say so explicitly for servers whose default differs.
        body.put("stream", false);

        for (Map.Entry<String, Object> e : settings.extraBody().entrySet()) {
            body.set(e.getKey(), Json.MAPPER.valueToTree(e.getValue()));
        }
        return body;
    }

    static ObjectNode message(Message m, FunctionNames names) {
        ObjectNode node = Json.object();
        node.put("role", m.role().wire());
        boolean hasCalls = m.role() == Role.ASSISTANT && !m.toolCalls().isEmpty();
        // The API wants content null (not "") beside tool calls; elsewhere an empty string is valid.
        if (hasCalls && m.content().isEmpty()) {
            node.putNull("content");
        } else {
            node.put("content", m.content());
        }
        if (hasCalls) {
            ArrayNode calls = node.putArray("tool_calls");
            for (ToolCall c : m.toolCalls()) calls.add(toolCall(c, names));
        }
        if (m.role() == Role.TOOL) {
            if (m.toolCallId() != null) node.put("tool_call_id", m.toolCallId());
            if (m.name() != null) node.put("name", names.wire(m.name()));
        }
        return node;
    }

    static ObjectNode toolCall(ToolCall c, FunctionNames names) {
        ObjectNode node = Json.object();
        node.put("id", c.id());
        node.put("type", "function");
        ObjectNode fn = node.putObject("function");
        fn.put("name", names.wire(c.name()));
        fn.put("arguments", argumentsString(c.arguments()));
        return node;
    }

    /**
     * The wire form of arguments is a JSON string. A text node is the model's raw output, kept
     * as-is (even when it is not valid JSON) so the history shows the model exactly what it wrote.
     */
    static String argumentsString(JsonNode arguments) {
        if (arguments == null || arguments.isNull() || arguments.isMissingNode()) return "{}";
        if (arguments.isTextual()) return arguments.textValue();
        return Json.write(arguments);
    }

    static ObjectNode tool(ToolSpec t, FunctionNames names) {
        ObjectNode node = Json.object();
        node.put("type", "function");
        ObjectNode fn = node.putObject("function");
        fn.put("name", names.wire(t.name()));
        if (t.description() != null) fn.put("description", t.description());
        // A tool without arguments still needs an object schema; some servers reject a missing one.
        JsonNode params = t.parameters();
        if (params == null || params.isNull() || params.isMissingNode()) {
            ObjectNode empty = Json.object();
            empty.put("type", "object");
            empty.putObject("properties");
            params = empty;
        }
        fn.set("parameters", params);
        return node;
    }

    static JsonNode toolChoice(String choice, FunctionNames names) {
        if (List.of("auto", "none", "required").contains(choice)) return Json.MAPPER.getNodeFactory().textNode(choice);
        ObjectNode named = Json.object();
        named.put("type", "function");
        named.putObject("function").put("name", names.wire(choice));
        return named;
    }
}
