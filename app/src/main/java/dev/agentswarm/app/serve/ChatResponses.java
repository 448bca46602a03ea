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
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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

    /**
     * The events of a streamed answer, each a {@code data: {...}} line pair: the role, then one chunk
     * per generated token carrying its text (and its log-prob and id when asked), or for a turn with
     * tool calls the text before them and one chunk per call (its id and name, then its arguments),
     * then each choice's finish reason, the usage when {@code stream_options.include_usage}, and
     * {@code data: [DONE]}.
     */
    public static List<String> events(String id, long created, String model, ChatRequest request, int[] prompt,
                                      List<Choice> choices, ServedModel served) {
        List<String> out = new ArrayList<>();
        int completionTokens = 0;
        for (Choice c : choices) {
            ObjectNode first = chunk(id, created, model, request);
            ObjectNode choice = choiceDelta(first, c.index());
            choice.with("delta").put("role", "assistant").put("content", "");
            if (c.index() == 0 && request.returnTokenIds()) first.set("prompt_token_ids", ids(prompt));
            out.add(event(first));
            Generation g = c.generation();
            int n = g.tokens().length;
            completionTokens += n;
            if (c.toolCalls().isEmpty()) {
                String[] pieces = pieces(g, c.content() == null ? "" : c.content(), served);
                for (int t = 0; t < n; t++) {
                    // A token that adds no visible text (a stop token, half a character) still carries its id and log-prob.
                    if (pieces[t].isEmpty() && !request.logprobs() && !request.returnTokenIds()) continue;
                    ObjectNode ch = chunk(id, created, model, request);
                    ObjectNode cd = choiceDelta(ch, c.index());
                    cd.with("delta").put("content", pieces[t]);
                    tokenFields(cd, g, t, t + 1, request, served);
                    out.add(event(ch));
                }
            } else {
                ObjectNode ch = chunk(id, created, model, request);
                ObjectNode cd = choiceDelta(ch, c.index());
                cd.with("delta").put("content", c.content() == null ? "" : c.content());
                tokenFields(cd, g, 0, n, request, served);
                out.add(event(ch));
                for (int k = 0; k < c.toolCalls().size(); k++) {
                    ToolCall call = c.toolCalls().get(k);
                    ObjectNode head = chunk(id, created, model, request);
                    ObjectNode callHead = choiceDelta(head, c.index()).with("delta").putArray("tool_calls").addObject();
                    callHead.put("index", k).put("id", call.id()).put("type", "function");
                    callHead.putObject("function").put("name", call.name()).put("arguments", "");
                    out.add(event(head));
                    ObjectNode args = chunk(id, created, model, request);
                    ObjectNode callArgs = choiceDelta(args, c.index()).with("delta").putArray("tool_calls").addObject();
                    callArgs.put("index", k);
                    callArgs.putObject("function").put("arguments", arguments(call));
                    out.add(event(args));
                }
            }
            ObjectNode last = chunk(id, created, model, request);
            ObjectNode lc = choiceDelta(last, c.index());
            lc.putObject("delta");
            lc.put("finish_reason", wire(c.finish()));
            out.add(event(last));
        }
        if (request.includeUsage()) {
            ObjectNode usage = chunk(id, created, model, request);
            usage.putArray("choices");
            usage.set("usage", usage(prompt.length, completionTokens));
            out.add(event(usage));
        }
        out.add("data: [DONE]\n\n");
        return out;
    }

    /** The text each token adds to {@code content}: the bytes decoded so far, cut where the content ends (a stop string). */
    static String[] pieces(Generation g, String content, ServedModel served) {
        int n = g.tokens().length;
        String[] out = new String[n];
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
        StringBuilder decoded = new StringBuilder();
        ByteBuffer pending = ByteBuffer.allocate(0);
        int emitted = 0;
        for (int t = 0; t < n; t++) {
            byte[] bytes = served.tokenBytes(g.tokens()[t]);
            ByteBuffer in = ByteBuffer.allocate(pending.remaining() + bytes.length);
            in.put(pending).put(bytes).flip();
            CharBuffer chars = CharBuffer.allocate(in.remaining() * 2 + 2);
            decoder.decode(in, chars, false); // a character split across tokens waits for its last byte
            chars.flip();
            decoded.append(chars);
            pending = in.slice();
            int upTo = Math.min(decoded.length(), content.length());
            // Only text that is a prefix of the content is streamed: the stop token and stop string never are.
            if (upTo > emitted && content.startsWith(decoded.substring(emitted, upTo), emitted)) {
                out[t] = content.substring(emitted, upTo);
                emitted = upTo;
            } else {
                out[t] = "";
            }
        }
        if (emitted < content.length() && n > 0) {
            for (int t = n - 1; t >= 0; t--) {
                if (!out[t].isEmpty() || t == 0) {
                    out[t] = out[t] + content.substring(emitted);
                    break;
                }
            }
        }
        return out;
    }

    private static void tokenFields(ObjectNode choice, Generation g, int from, int to, ChatRequest request, ServedModel served) {
        if (request.logprobs()) choice.putObject("logprobs").set("content", logprobs(g, from, to, request, served));
        if (request.returnTokenIds()) {
            ArrayNode ids = choice.putArray("token_ids");
            for (int t = from; t < to; t++) ids.add(g.tokens()[t]);
        }
    }

    private static ArrayNode logprobs(Generation g, int from, int to, ChatRequest request, ServedModel served) {
        ArrayNode content = Json.MAPPER.createArrayNode();
        for (int t = from; t < to; t++) {
            int token = g.tokens()[t];
            byte[] bytes = served.tokenBytes(token);
            ObjectNode entry = content.addObject();
            entry.put("token", request.tokensAsIds() ? "token_id:" + token : new String(bytes, StandardCharsets.UTF_8));
            entry.put("logprob", g.logprobs()[t]);
            ArrayNode b = entry.putArray("bytes");
            for (byte x : bytes) b.add(x & 0xff);
            entry.putArray("top_logprobs");
        }
        return content;
    }

    private static ObjectNode head(String id, String object, long created, String model) {
        ObjectNode root = Json.object();
        root.put("id", id);
        root.put("object", object);
        root.put("created", created);
        root.put("model", model);
        return root;
    }

    private static ObjectNode chunk(String id, long created, String model, ChatRequest request) {
        ObjectNode root = head(id, "chat.completion.chunk", created, model);
        root.putArray("choices");
        return root;
    }

    private static ObjectNode choiceDelta(ObjectNode chunk, int index) {
        ObjectNode c = ((ArrayNode) chunk.get("choices")).addObject();
        c.put("index", index);
        c.putObject("delta");
        c.putNull("logprobs");
        c.putNull("finish_reason");
        return c;
    }

    private static ObjectNode toolCall(ToolCall call) {
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

    private static ArrayNode ids(int[] ids) {
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

    static String lower(String s) {
        return s.toLowerCase(Locale.ROOT);
    }
}
