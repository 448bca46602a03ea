package dev.agentswarm.policy.openai;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.policy.PolicyException;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.core.protocol.ToolCall;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a non-streaming {@code chat.completion} body into a {@link Completion}. Only the first
 * choice is used (we never ask for {@code n > 1}). Fields that only some servers send (logprobs,
 * token ids, usage, a policy version) are optional; the fields every server must send (choices,
 * message) are required and their absence is reported by name.
 */
final class ChatResponseDecoder {

    /** vLLM's {@code return_tokens_as_token_ids} spells each logprob token this way. */
    private static final Pattern TOKEN_ID = Pattern.compile("token_id:(-?\\d+)");

    private ChatResponseDecoder() {}

    static Completion decode(String body) {
        JsonNode root;
        try {
            root = Json.parse(body);
        } catch (JsonProcessingException e) {
            throw new PolicyException("malformed JSON from server: " + e.getOriginalMessage() + " at line "
                    + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + "; body: "
                    + ServerErrorText.cut(body) + notAnApiHint(body), false, e);
        }
        if (root == null || root.isMissingNode()) {
            throw new PolicyException("malformed JSON from server: empty body", false);
        }
        if (!root.isObject()) {
            throw new PolicyException("malformed JSON from server: expected a chat.completion object, got "
                    + ServerErrorText.cut(root.toString()), false);
        }
        JsonNode choices = root.get("choices");
        if (choices == null || choices.isNull()) {
            // Some servers answer 200 with an error document (e.g. when a backend worker died mid-request).
            String error = root.has("error") ? ServerErrorText.fromJson(root) : null;
            if (error != null) throw new PolicyException("server answered with an error: " + ServerErrorText.cut(error), false);
            throw new PolicyException("response has no 'choices' field: " + ServerErrorText.cut(body)
                    + " (expected a chat.completion object; is base-url the /v1 root of an OpenAI-compatible server?)",
                    false);
        }
        if (!choices.isArray() || choices.isEmpty()) {
            throw new PolicyException("response has " + (choices.isArray() ? "an empty" : "a non-list")
                    + " 'choices' field: " + ServerErrorText.cut(body), false);
        }
        JsonNode choice = choices.get(0);
        JsonNode message = choice.get("message");
        if (message == null || !message.isObject()) {
            throw new PolicyException("response has no 'choices[0].message' field"
                    + (choice.has("text") ? " (it looks like a /completions answer, not /chat/completions)" : "")
                    + ": " + ServerErrorText.cut(body), false);
        }

        String text = content(message.get("content"));
        List<ToolCall> calls = toolCalls(message.get("tool_calls"));
        FinishReason finish = FinishReason.fromWire(textOrNull(choice.get("finish_reason")));

        JsonNode logprobContent = choice.path("logprobs").path("content");
        float[] logprobs = logprobs(logprobContent);
        int[] tokenIds = intArray(choice.get("token_ids"));
        if (tokenIds == null) tokenIds = idsFromLogprobTokens(logprobContent);
        if (tokenIds == null) tokenIds = new int[0];
        // A count mismatch between ids and logprobs is kept as-is: the caller decides whether the
        // turn is usable for training; dropping data here would hide the server's behaviour.

        JsonNode usage = root.path("usage");
        int completionTokens = usage.path("completion_tokens").isNumber() ? usage.get("completion_tokens").asInt()
                : Math.max(tokenIds.length, logprobs.length);
        int promptTokens = usage.path("prompt_tokens").isNumber() ? usage.get("prompt_tokens").asInt()
                : root.path("prompt_token_ids").size();

        return new Completion(text, calls, tokenIds, logprobs, finish, policyVersion(root), promptTokens,
                completionTokens);
    }

    /** Content is a string, null (tool calls only) or, on a few servers, a list of text parts. */
    private static String content(JsonNode content) {
        if (content == null || content.isNull()) return "";
        if (content.isTextual()) return content.textValue();
        if (content.isArray()) {
            StringBuilder sb = new StringBuilder();
            for (JsonNode part : content) {
                if (part.isTextual()) sb.append(part.textValue());
                else if (part.path("text").isTextual()) sb.append(part.get("text").textValue());
            }
            return sb.toString();
        }
        throw new PolicyException("response field 'choices[0].message.content' is neither a string nor null: "
                + ServerErrorText.cut(content.toString()), false);
    }

    private static List<ToolCall> toolCalls(JsonNode node) {
        if (node == null || node.isNull()) return List.of();
        if (!node.isArray()) {
            throw new PolicyException("response field 'choices[0].message.tool_calls' is not a list: "
                    + ServerErrorText.cut(node.toString()), false);
        }
        List<ToolCall> calls = new ArrayList<>(node.size());
        for (int i = 0; i < node.size(); i++) {
            JsonNode call = node.get(i);
            String where = "choices[0].message.tool_calls[" + i + "]";
            JsonNode fn = call.get("function");
            if (fn == null || !fn.isObject()) {
                throw new PolicyException("response has no '" + where + ".function' field: "
                        + ServerErrorText.cut(call.toString()), false);
            }
            String name = textOrNull(fn.get("name"));
            if (name == null || name.isEmpty()) {
                throw new PolicyException("response has no '" + where + ".function.name' field: "
                        + ServerErrorText.cut(call.toString()), false);
            }
            // Tool messages must quote an id; servers that leave it out (old llama.cpp) get a stable one.
            String id = textOrNull(call.get("id"));
            if (id == null || id.isEmpty()) id = "call_" + i;
            calls.add(new ToolCall(id, name, arguments(fn.get("arguments"))));
        }
        return calls;
    }

    /**
     * The wire form is a JSON string, which the model may have got wrong. It stays a raw string
     * here so that the tool-call format can decode it and tell the model what was wrong; an
     * object (some servers decode it themselves) is kept as it is.
     */
    private static JsonNode arguments(JsonNode args) {
        if (args == null || args.isNull()) return Json.object();
        if (args.isTextual()) return TextNode.valueOf(args.textValue());
        return args;
    }

    private static float[] logprobs(JsonNode content) {
        if (!content.isArray() || content.isEmpty()) return new float[0];
        float[] out = new float[content.size()];
        for (int i = 0; i < out.length; i++) {
            JsonNode lp = content.get(i).get("logprob");
            // One missing value makes the whole sequence unusable for a policy gradient: drop it.
            if (lp == null || !lp.isNumber()) return new float[0];
            out[i] = (float) lp.asDouble();
        }
        return out;
    }

    private static int[] intArray(JsonNode node) {
        if (node == null || !node.isArray()) return null;
        int[] out = new int[node.size()];
        for (int i = 0; i < out.length; i++) {
            if (!node.get(i).canConvertToInt()) return null;
            out[i] = node.get(i).asInt();
        }
        return out;
    }

    /**
     * Token ids recovered from the logprob entries: vLLM with {@code return_tokens_as_token_ids}
     * writes the token as {@code "token_id:123"}; llama.cpp adds an integer {@code id}. All
     * entries must agree on one form, or the ids would not line up with the logprobs.
     */
    private static int[] idsFromLogprobTokens(JsonNode content) {
        if (!content.isArray() || content.isEmpty()) return null;
        int[] out = new int[content.size()];
        boolean allPrefixed = true;
        boolean allIds = true;
        for (int i = 0; i < out.length && (allPrefixed || allIds); i++) {
            JsonNode entry = content.get(i);
            String token = textOrNull(entry.get("token"));
            Matcher m = token == null ? null : TOKEN_ID.matcher(token);
            if (m != null && m.matches()) {
                out[i] = Integer.parseInt(m.group(1));
                allIds = false;
            } else {
                allPrefixed = false;
                if (allIds && entry.path("id").canConvertToInt() && entry.path("id").isIntegralNumber()) {
                    out[i] = entry.get("id").asInt();
                } else {
                    allIds = false;
                }
            }
        }
        return allPrefixed || allIds ? out : null;
    }

    /**
     * Which weights produced the answer, for off-policy corrections. Not part of the OpenAI API:
     * RL serving stacks add it at top level under one of these names; SGLang's may be a
     * non-numeric label, which counts as unknown (0).
     */
    private static long policyVersion(JsonNode root) {
        for (String field : new String[] {"policy_version", "weight_version"}) {
            JsonNode v = root.get(field);
            if (v == null || v.isNull()) continue;
            if (v.isIntegralNumber()) return v.asLong();
            if (v.isNumber()) return (long) v.asDouble();
            if (v.isTextual()) {
                try {
                    return Long.parseLong(v.textValue().strip());
                } catch (NumberFormatException notANumber) {
                    return 0;
                }
            }
        }
        return 0;
    }

    /** A body that is not even JSON-shaped (an HTML page, a proxy banner) usually means a wrong base-url. */
    private static String notAnApiHint(String body) {
        String b = body == null ? "" : body.stripLeading();
        return b.startsWith("{") || b.startsWith("[") ? ""
                : " (is base-url the API root of an OpenAI-compatible server, usually ending in /v1?)";
    }

    private static String textOrNull(JsonNode n) {
        return n == null || n.isNull() ? null : n.asText();
    }
}
