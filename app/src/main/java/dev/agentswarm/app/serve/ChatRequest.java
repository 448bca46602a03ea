package dev.agentswarm.app.serve;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Role;
import dev.agentswarm.core.protocol.SamplingParams;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolSpec;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A {@code POST /v1/chat/completions} body, read and checked field by field. Every problem is an
 * {@link ApiError} (400) naming the field as the OpenAI API does ({@code messages[1].role}). Fields
 * this server cannot honour (penalties, logit bias, a JSON response format, top log-probs) are refused
 * rather than silently ignored; fields that change nothing here ({@code user}, {@code store},
 * {@code parallel_tool_calls}) are accepted, as vLLM accepts them.
 *
 * <p>{@code toolChoice} is "auto", "none", "required" or the name of one of {@code tools}.
 * {@code maxTokens} is null when the client set no limit (the model's context is then the limit).
 * {@code returnTokenIds} and {@code tokensAsIds} are vLLM's extensions ({@code return_token_ids},
 * {@code return_tokens_as_token_ids}) that RL clients use to train on exactly what was sampled.
 */
public record ChatRequest(String model, List<Message> messages, List<ToolSpec> tools, String toolChoice,
                          double temperature, double topP, int topK, Integer maxTokens, List<String> stop, Long seed,
                          int n, boolean logprobs, int topLogprobs, boolean stream, boolean includeUsage, boolean returnTokenIds,
                          boolean tokensAsIds) {

    public static final int MAX_N = 128;

    /** As the OpenAI API: a temperature above 2 is refused. */
    public static final double MAX_TEMPERATURE = 2.0;

    /** The sampling parameters of choice {@code index}: with a seed, choice i samples with seed + i, so choices differ. */
    public SamplingParams sampling(int index, int contextLimit) {
        int max = maxTokens != null ? maxTokens : contextLimit;
        return new SamplingParams(temperature, topP, topK, max, stop, seed == null ? null : seed + index);
    }

    /** Whether tools are offered to the model and its answer is read for tool calls. */
    public boolean toolsOffered() {
        return !tools.isEmpty() && !"none".equals(toolChoice);
    }

    /** The tools the model is shown: all of them, or the one a named {@code tool_choice} picks. */
    public List<ToolSpec> offeredTools() {
        if (!toolsOffered()) return List.of();
        if (List.of("auto", "required").contains(toolChoice)) return tools;
        return tools.stream().filter(t -> t.name().equals(toolChoice)).toList();
    }

    /** The last user message's text: the task of a swarm. */
    public String lastUserMessage() {
        for (int i = messages.size() - 1; i >= 0; i--) {
            if (messages.get(i).role() == Role.USER) return messages.get(i).content();
        }
        return null;
    }

    /** Reads a request body; throws {@link ApiError} naming the first field at fault. */
    public static ChatRequest parse(String body) {
        JsonNode root;
        try {
            root = Json.parse(body);
        } catch (JsonProcessingException e) {
            throw ApiError.invalid(null, "the request body is not valid JSON: " + e.getOriginalMessage() + " at line "
                    + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr());
        }
        return parse(root);
    }

    public static ChatRequest parse(JsonNode root) {
        if (root == null || !root.isObject()) {
            throw ApiError.invalid(null, "the request body must be a JSON object with \"model\" and \"messages\"");
        }
        String model = requiredString(root, "model");
        List<Message> messages = messages(root.get("messages"));
        List<ToolSpec> tools = tools(root.get("tools"));
        String toolChoice = toolChoice(root.get("tool_choice"), tools);

        double temperature = number(root, "temperature", 1.0, 0, MAX_TEMPERATURE, true);
        double topP = number(root, "top_p", 1.0, 0, 1, false);
        int topK = integer(root, "top_k", 0, -1, Integer.MAX_VALUE);
        if (topK < 0) topK = 0; // vLLM's -1: no top-k cut
        Integer maxTokens = null;
        for (String field : new String[] {"max_completion_tokens", "max_tokens"}) {
            if (present(root, field)) {
                maxTokens = integer(root, field, 0, 1, Integer.MAX_VALUE);
                break;
            }
        }
        List<String> stop = stop(root.get("stop"));
        Long seed = null;
        if (present(root, "seed")) {
            JsonNode s = root.get("seed");
            if (!s.isIntegralNumber() || !s.canConvertToLong()) throw ApiError.invalid("seed", "seed must be an integer, got " + s);
            seed = s.asLong();
        }
        int n = integer(root, "n", 1, 1, MAX_N);
        boolean logprobs = bool(root, "logprobs", false);
        int topLogprobs = integer(root, "top_logprobs", 0, 0, 20);
        if (topLogprobs > 0 && !logprobs) throw ApiError.invalid("top_logprobs", "top_logprobs needs \"logprobs\": true");
        boolean stream = bool(root, "stream", false);
        boolean includeUsage = false;
        JsonNode streamOptions = root.get("stream_options");
        if (streamOptions != null && !streamOptions.isNull()) {
            if (!stream) throw ApiError.invalid("stream_options", "stream_options is only allowed with \"stream\": true");
            if (!streamOptions.isObject()) throw ApiError.invalid("stream_options", "stream_options must be an object");
            includeUsage = bool(streamOptions, "include_usage", "stream_options.include_usage", false);
        }
        boolean returnTokenIds = bool(root, "return_token_ids", false);
        boolean tokensAsIds = bool(root, "return_tokens_as_token_ids", false);
        refuseUnsupported(root);
        return new ChatRequest(model, messages, tools, toolChoice, temperature, topP, topK, maxTokens, stop, seed, n,
                logprobs, topLogprobs, stream, includeUsage, returnTokenIds, tokensAsIds);
    }

    /** Fields whose non-default values would change the output in ways this server does not implement. */
    private static void refuseUnsupported(JsonNode root) {
        for (String penalty : new String[] {"presence_penalty", "frequency_penalty"}) {
            if (present(root, penalty)) {
                JsonNode v = root.get(penalty);
                if (!v.isNumber()) throw ApiError.invalid(penalty, penalty + " must be a number, got " + v);
                if (v.asDouble() != 0) {
                    throw ApiError.invalid(penalty, penalty + " is not supported by this server: leave it out or set it to 0");
                }
            }
        }
        JsonNode bias = root.get("logit_bias");
        if (bias != null && !bias.isNull() && !(bias.isObject() && bias.isEmpty())) {
            throw ApiError.invalid("logit_bias", "logit_bias is not supported by this server: leave it out");
        }
        JsonNode format = root.get("response_format");
        if (format != null && !format.isNull() && !"text".equals(format.path("type").asText(""))) {
            throw ApiError.invalid("response_format", "only response_format {\"type\": \"text\"} is supported:"
                    + " this server does not constrain decoding to JSON");
        }
        if (present(root, "functions") || present(root, "function_call")) {
            throw ApiError.invalid(present(root, "functions") ? "functions" : "function_call",
                    "the deprecated functions/function_call fields are not supported: use tools and tool_choice");
        }
    }

    private static List<Message> messages(JsonNode node) {
        if (node == null || node.isNull()) throw ApiError.invalid("messages", "messages is required: a list of chat messages");
        if (!node.isArray()) throw ApiError.invalid("messages", "messages must be a list, got " + kind(node));
        if (node.isEmpty()) throw ApiError.invalid("messages", "messages must hold at least one message");
        List<Message> out = new ArrayList<>(node.size());
        Set<String> openCalls = new HashSet<>();
        for (int i = 0; i < node.size(); i++) {
            String where = "messages[" + i + "]";
            JsonNode m = node.get(i);
            if (!m.isObject()) throw ApiError.invalid(where, where + " must be an object, got " + kind(m));
            String roleName = requiredString(m, "role", where + ".role");
            Role role = switch (roleName) {
                case "system", "developer" -> Role.SYSTEM;
                case "user" -> Role.USER;
                case "assistant" -> Role.ASSISTANT;
                case "tool" -> Role.TOOL;
                default -> throw ApiError.invalid(where + ".role", where + ".role must be one of system, developer,"
                        + " user, assistant, tool; got \"" + roleName + "\"");
            };
            List<ToolCall> calls = role == Role.ASSISTANT ? toolCalls(m.get("tool_calls"), where + ".tool_calls") : List.of();
            JsonNode contentNode = m.get("content");
            if ((contentNode == null || contentNode.isNull()) && !(role == Role.ASSISTANT)) {
                throw ApiError.invalid(where + ".content", where + ".content is required for a " + roleName + " message");
            }
            String content = content(contentNode, where + ".content");
            String toolCallId = null;
            String name = null;
            if (role == Role.TOOL) {
                toolCallId = requiredString(m, "tool_call_id", where + ".tool_call_id");
                if (!openCalls.contains(toolCallId)) {
                    throw ApiError.invalid(where + ".tool_call_id", where + ".tool_call_id \"" + toolCallId
                            + "\" answers no tool call of an earlier assistant message");
                }
            }
            if (m.hasNonNull("name")) {
                if (!m.get("name").isTextual()) throw ApiError.invalid(where + ".name", where + ".name must be a string");
                name = m.get("name").textValue();
            }
            for (ToolCall c : calls) openCalls.add(c.id());
            // A tool message names its tool for templates that print it; find it from the call it answers.
            if (role == Role.TOOL && name == null) name = toolName(out, toolCallId);
            out.add(new Message(role, content, calls, toolCallId, name));
        }
        return out;
    }

    private static String toolName(List<Message> earlier, String callId) {
        for (int i = earlier.size() - 1; i >= 0; i--) {
            for (ToolCall c : earlier.get(i).toolCalls()) if (c.id().equals(callId)) return c.name();
        }
        return null;
    }

    /** A string, null, or a list of text parts ({@code {"type": "text", "text": ...}}). */
    private static String content(JsonNode node, String where) {
        if (node == null || node.isNull()) return "";
        if (node.isTextual()) return node.textValue();
        if (node.isArray()) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < node.size(); i++) {
                JsonNode part = node.get(i);
                String partWhere = where + "[" + i + "]";
                String type = part.path("type").asText("");
                if (!"text".equals(type)) {
                    throw ApiError.invalid(partWhere + ".type", partWhere + " is a \"" + type + "\" part; this server"
                            + " serves a text model: only \"text\" parts are accepted");
                }
                if (!part.path("text").isTextual()) throw ApiError.invalid(partWhere + ".text", partWhere + ".text must be a string");
                sb.append(part.get("text").textValue());
            }
            return sb.toString();
        }
        throw ApiError.invalid(where, where + " must be a string or a list of text parts, got " + kind(node));
    }

    private static List<ToolCall> toolCalls(JsonNode node, String where) {
        if (node == null || node.isNull()) return List.of();
        if (!node.isArray()) throw ApiError.invalid(where, where + " must be a list, got " + kind(node));
        List<ToolCall> out = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            String w = where + "[" + i + "]";
            JsonNode call = node.get(i);
            if (!call.isObject()) throw ApiError.invalid(w, w + " must be an object");
            String id = requiredString(call, "id", w + ".id");
            JsonNode fn = call.get("function");
            if (fn == null || !fn.isObject()) throw ApiError.invalid(w + ".function", w + ".function is required: {\"name\", \"arguments\"}");
            String name = requiredString(fn, "name", w + ".function.name");
            JsonNode args = fn.get("arguments");
            JsonNode parsed;
            if (args == null || args.isNull()) {
                parsed = Json.object();
            } else if (!args.isTextual()) {
                throw ApiError.invalid(w + ".function.arguments", w + ".function.arguments must be a JSON string, got " + kind(args));
            } else {
                // Arguments the model wrote as invalid JSON stay the text it wrote: the history shows it what it did.
                try {
                    parsed = Json.parse(args.textValue());
                } catch (JsonProcessingException e) {
                    parsed = TextNode.valueOf(args.textValue());
                }
            }
            out.add(new ToolCall(id, name, parsed));
        }
        return out;
    }

    private static List<ToolSpec> tools(JsonNode node) {
        if (node == null || node.isNull()) return List.of();
        if (!node.isArray()) throw ApiError.invalid("tools", "tools must be a list, got " + kind(node));
        List<ToolSpec> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < node.size(); i++) {
            String w = "tools[" + i + "]";
            JsonNode t = node.get(i);
            if (!t.isObject()) throw ApiError.invalid(w, w + " must be an object");
            String type = t.path("type").asText("");
            if (!"function".equals(type)) throw ApiError.invalid(w + ".type", w + ".type must be \"function\", got \"" + type + "\"");
            JsonNode fn = t.get("function");
            if (fn == null || !fn.isObject()) throw ApiError.invalid(w + ".function", w + ".function is required");
            String name = requiredString(fn, "name", w + ".function.name");
            if (!name.matches("[A-Za-z0-9_-]{1,64}")) {
                throw ApiError.invalid(w + ".function.name", w + ".function.name must be 1-64 letters, digits, _ or -; got \"" + name + "\"");
            }
            if (!names.add(name)) throw ApiError.invalid(w + ".function.name", "two tools are named \"" + name + "\"");
            String description = null;
            if (fn.hasNonNull("description")) {
                if (!fn.get("description").isTextual()) throw ApiError.invalid(w + ".function.description", w + ".function.description must be a string");
                description = fn.get("description").textValue();
            }
            JsonNode params = fn.get("parameters");
            if (params != null && !params.isNull() && !params.isObject()) {
                throw ApiError.invalid(w + ".function.parameters", w + ".function.parameters must be a JSON Schema object");
            }
            out.add(new ToolSpec(name, description, params == null || params.isNull() ? null : params));
        }
        return out;
    }

    private static String toolChoice(JsonNode node, List<ToolSpec> tools) {
        if (node == null || node.isNull()) return tools.isEmpty() ? "none" : "auto";
        if (node.isTextual()) {
            String c = node.textValue();
            if (!List.of("auto", "none", "required").contains(c)) {
                throw ApiError.invalid("tool_choice", "tool_choice must be \"auto\", \"none\", \"required\" or"
                        + " {\"type\": \"function\", \"function\": {\"name\": ...}}; got \"" + c + "\"");
            }
            if (!c.equals("none") && tools.isEmpty()) {
                throw ApiError.invalid("tool_choice", "tool_choice \"" + c + "\" needs tools: the request has none");
            }
            return c;
        }
        if (node.isObject()) {
            String name = node.path("function").path("name").isTextual() ? node.path("function").path("name").textValue() : null;
            if (!"function".equals(node.path("type").asText()) || name == null) {
                throw ApiError.invalid("tool_choice", "a named tool_choice is {\"type\": \"function\", \"function\": {\"name\": ...}}");
            }
            if (tools.stream().noneMatch(t -> t.name().equals(name))) {
                throw ApiError.invalid("tool_choice", "tool_choice names \"" + name + "\", which is not among the request's tools");
            }
            return name;
        }
        throw ApiError.invalid("tool_choice", "tool_choice must be a string or an object, got " + kind(node));
    }

    private static List<String> stop(JsonNode node) {
        if (node == null || node.isNull()) return List.of();
        if (node.isTextual()) {
            if (node.textValue().isEmpty()) throw ApiError.invalid("stop", "stop must not be an empty string");
            return List.of(node.textValue());
        }
        if (!node.isArray()) throw ApiError.invalid("stop", "stop must be a string or a list of strings, got " + kind(node));
        List<String> out = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            JsonNode s = node.get(i);
            if (!s.isTextual() || s.textValue().isEmpty()) {
                throw ApiError.invalid("stop", "stop[" + i + "] must be a non-empty string, got " + s);
            }
            out.add(s.textValue());
        }
        return out;
    }

    private static boolean present(JsonNode root, String field) {
        return root.has(field) && !root.get(field).isNull();
    }

    private static String requiredString(JsonNode root, String field) {
        return requiredString(root, field, field);
    }

    private static String requiredString(JsonNode root, String field, String param) {
        JsonNode v = root.get(field);
        if (v == null || v.isNull()) throw ApiError.invalid(param, param + " is required");
        if (!v.isTextual()) throw ApiError.invalid(param, param + " must be a string, got " + kind(v));
        if (v.textValue().isEmpty()) throw ApiError.invalid(param, param + " must not be empty");
        return v.textValue();
    }

    private static double number(JsonNode root, String field, double dflt, double min, double max, boolean minInclusive) {
        if (!present(root, field)) return dflt;
        JsonNode v = root.get(field);
        if (!v.isNumber()) throw ApiError.invalid(field, field + " must be a number, got " + kind(v));
        double d = v.asDouble();
        if ((minInclusive ? d < min : d <= min) || d > max || Double.isNaN(d)) {
            throw ApiError.invalid(field, field + " must be in " + (minInclusive ? "[" : "(") + fmt(min) + ", " + fmt(max)
                    + "], got " + v);
        }
        return d;
    }

    private static int integer(JsonNode root, String field, int dflt, int min, int max) {
        if (!present(root, field)) return dflt;
        JsonNode v = root.get(field);
        if (!v.isIntegralNumber() || !v.canConvertToInt()) throw ApiError.invalid(field, field + " must be an integer, got " + v);
        int i = v.asInt();
        if (i < min || i > max) {
            throw ApiError.invalid(field, field + " must be " + (max == Integer.MAX_VALUE ? ">= " + min : "in [" + min + ", " + max + "]")
                    + ", got " + i);
        }
        return i;
    }

    private static boolean bool(JsonNode root, String field, boolean dflt) {
        return bool(root, field, field, dflt);
    }

    private static boolean bool(JsonNode root, String field, String param, boolean dflt) {
        if (!present(root, field)) return dflt;
        JsonNode v = root.get(field);
        if (!v.isBoolean()) throw ApiError.invalid(param, param + " must be true or false, got " + v);
        return v.booleanValue();
    }

    private static String fmt(double d) {
        return d == Math.rint(d) ? String.valueOf((long) d) : String.valueOf(d);
    }

    private static String kind(JsonNode n) {
        return switch (n.getNodeType()) {
            case ARRAY -> "a list";
            case OBJECT -> "an object";
            case STRING -> "a string";
            case NUMBER -> "a number";
            case BOOLEAN -> "a boolean";
            case NULL -> "null";
            default -> n.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
        };
    }
}
