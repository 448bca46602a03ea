package dev.agentswarm.app.serve;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.format.HermesFormat;
import dev.agentswarm.core.format.ParsedCompletion;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.policy.embedded.Generation;
import dev.agentswarm.policy.embedded.TopLogprobs;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Builds the {@code chat.completion} body and the {@code chat.completion.chunk} events of a stream
 * from what the model generated. A model's text is read for tool calls with the model's own format
 * (Hermes {@code <tool_call>} blocks, which the project's ChatML and Qwen-style templates teach) when
 * the request offered tools: the calls become {@code tool_calls}, the text around them the content.
 * Token ids and log-probs are added the way vLLM adds them, so RL clients train on exactly what was
 * sampled: {@code prompt_token_ids} and each choice's {@code token_ids} with {@code return_token_ids},
 * each logprob's token written {@code token_id:N} with {@code return_tokens_as_token_ids}; the policy
 * version that produced a completion is {@code policy_version}.
 */
public final class ChatResponses {

    private static final HermesFormat TOOL_CALLS = new HermesFormat();

    private ChatResponses() {}

    /** One choice: what was generated and how it reads. {@code content} is null when there is only tool calls. */
    public record Choice(int index, Generation generation, String content, List<ToolCall> toolCalls, FinishReason finish) {}

    /** Reads generation {@code g} as choice {@code index} of {@code request}. */
    public static Choice choice(int index, Generation g, ChatRequest request) {
        if (request.toolsOffered()) {
            ParsedCompletion parsed = TOOL_CALLS.parse(new Completion(g.text(), List.of(), g.tokens(), g.logprobs(),
                    g.finishReason(), g.firstVersion(), g.promptTokens(), g.tokens().length), request.offeredTools());
            if (!parsed.toolCalls().isEmpty()) {
                List<ToolCall> calls = new ArrayList<>();
                for (ToolCall c : parsed.toolCalls()) calls.add(new ToolCall(newCallId(), c.name(), c.arguments()));
                String prose = parsed.thought().isBlank() ? null : parsed.thought();
                // A turn cut off by the token limit stays "length": the calls may be incomplete.
                FinishReason finish = g.finishReason() == FinishReason.LENGTH ? FinishReason.LENGTH : FinishReason.TOOL_CALLS;
                return new Choice(index, g, prose, calls, finish);
            }
        }
        return new Choice(index, g, g.text(), List.of(), g.finishReason());
    }

    public static String newCompletionId() {
        return "chatcmpl-" + randomHex(24);
    }

    static String newCallId() {
        return "call_" + randomHex(24);
    }

    private static String randomHex(int n) {
        StringBuilder sb = new StringBuilder(n);
        ThreadLocalRandom r = ThreadLocalRandom.current();
        while (sb.length() < n) sb.append(Long.toHexString(r.nextLong() & Long.MAX_VALUE));
        return sb.substring(0, n);
    }

    /** The non-streamed {@code chat.completion} body. */
    public static ObjectNode completion(String id, long created, String model, ChatRequest request, int[] prompt,
                                        List<Choice> choices, ServedModel served) {
        ObjectNode root = head(id, "chat.completion", created, model);
        ArrayNode array = root.putArray("choices");
        int completionTokens = 0;
        long version = 0;
        for (Choice c : choices) {
            ObjectNode choice = array.addObject();
            choice.put("index", c.index());
            ObjectNode message = choice.putObject("message");
            message.put("role", "assistant");
            if (c.content() == null) message.putNull("content");
            else message.put("content", c.content());
            if (!c.toolCalls().isEmpty()) {
                ArrayNode calls = message.putArray("tool_calls");
                for (ToolCall call : c.toolCalls()) calls.add(toolCall(call));
            }
            if (request.logprobs()) {
                choice.putObject("logprobs").set("content", logprobs(c.generation(), 0, c.generation().tokens().length,
                        request, served));
            } else {
                choice.putNull("logprobs");
            }
            choice.put("finish_reason", wire(c.finish()));
            if (request.returnTokenIds()) choice.set("token_ids", ids(c.generation().tokens()));
            completionTokens += c.generation().tokens().length;
            version = Math.max(version, c.generation().lastVersion());
        }
        root.set("usage", usage(prompt.length, completionTokens));
        if (request.returnTokenIds()) root.set("prompt_token_ids", ids(prompt));
        root.put("policy_version", version);
        return root;
    }

    /** A chunk's log-probs and token ids ({@code return_token_ids}) for tokens {@code from .. to-1}, when asked. */
    static void tokenFields(ObjectNode choice, int[] tokens, float[] lps, TopLogprobs top, int from, int to, ChatRequest request,
                            ServedModel served) {
        if (request.logprobs()) choice.putObject("logprobs").set("content", logprobs(tokens, lps, top, from, to, request, served));
        if (request.returnTokenIds()) {
            ArrayNode ids = choice.putArray("token_ids");
            for (int t = from; t < to; t++) ids.add(tokens[t]);
        }
    }

    private static ArrayNode logprobs(Generation g, int from, int to, ChatRequest request, ServedModel served) {
        return logprobs(g.tokens(), g.logprobs(), g.top(), from, to, request, served);
    }

    /**
     * OpenAI's {@code logprobs.content}: each token, its log-prob and bytes, and its position's
     * {@code top_logprobs} when asked ({@code top}, indexed as {@code tokens}; null: none kept).
     */
    static ArrayNode logprobs(int[] tokens, float[] lps, TopLogprobs top, int from, int to, ChatRequest request, ServedModel served) {
        ArrayNode content = Json.MAPPER.createArrayNode();
        for (int t = from; t < to; t++) {
            ObjectNode entry = content.addObject();
            tokenEntry(entry, tokens[t], lps[t], request, served);
            ArrayNode alternatives = entry.putArray("top_logprobs");
            if (top != null && request.topLogprobs() > 0) {
                for (int k = 0; k < top.ids()[t].length; k++) {
                    tokenEntry(alternatives.addObject(), top.ids()[t][k], top.logprobs()[t][k], request, served);
                }
            }
        }
        return content;
    }

    private static void tokenEntry(ObjectNode entry, int token, float logprob, ChatRequest request, ServedModel served) {
        byte[] bytes = served.tokenBytes(token);
        entry.put("token", request.tokensAsIds() ? "token_id:" + token : new String(bytes, StandardCharsets.UTF_8));
        entry.put("logprob", logprob);
        ArrayNode b = entry.putArray("bytes");
        for (byte x : bytes) b.add(x & 0xff);
    }

    private static ObjectNode head(String id, String object, long created, String model) {
        ObjectNode root = Json.object();
        root.put("id", id);
        root.put("object", object);
        root.put("created", created);
        root.put("model", model);
        return root;
    }

    static ObjectNode chunk(String id, long created, String model) {
        ObjectNode root = head(id, "chat.completion.chunk", created, model);
        root.putArray("choices");
        return root;
    }

    static ObjectNode choiceDelta(ObjectNode chunk, int index) {
        ObjectNode c = ((ArrayNode) chunk.get("choices")).addObject();
        c.put("index", index);
        c.putObject("delta");
        c.putNull("logprobs");
        c.putNull("finish_reason");
        return c;
    }

    static ObjectNode toolCall(ToolCall call) {
        ObjectNode node = Json.object();
        node.put("id", call.id());
        node.put("type", "function");
        node.putObject("function").put("name", call.name()).put("arguments", arguments(call));
        return node;
    }

    /** The wire form of arguments is a JSON string; text the model wrote that is not JSON is passed on as written. */
    static String arguments(ToolCall call) {
        if (call.arguments() == null || call.arguments().isNull()) return "{}";
        if (call.arguments().isTextual()) return call.arguments().textValue();
        return Json.write(call.arguments());
    }

    static ObjectNode usage(int prompt, int completion) {
        ObjectNode u = Json.object();
        u.put("prompt_tokens", prompt);
        u.put("completion_tokens", completion);
        u.put("total_tokens", prompt + completion);
        return u;
    }

    static ArrayNode ids(int[] ids) {
        ArrayNode a = Json.MAPPER.createArrayNode();
        for (int id : ids) a.add(id);
        return a;
    }

    static String wire(FinishReason f) {
        return switch (f) {
            case STOP -> "stop";
            case LENGTH -> "length";
            case TOOL_CALLS -> "tool_calls";
            case CONTENT_FILTER -> "content_filter";
            case OTHER -> "stop";
        };
    }

    static String event(ObjectNode chunk) {
        return "data: " + Json.write(chunk) + "\n\n";
    }
}
