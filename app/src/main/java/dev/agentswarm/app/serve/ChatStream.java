package dev.agentswarm.app.serve;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.policy.embedded.Generation;
import dev.agentswarm.policy.embedded.TopLogprobs;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The server-sent events of one streamed chat completion, built as the model's tokens arrive. Each
 * choice opens with its role; then each batch of tokens adds a chunk with the text it made visible
 * (and its log-probs and ids when asked); text that may still turn out to be a stop string, or the
 * start of a {@code <tool_call>} block when tools are offered, is held back until it is known. When a
 * choice ends, the rest of its text comes, then its tool calls (each its id and name, then its
 * arguments), then its finish reason; when every choice has ended, the usage (with
 * {@code stream_options.include_usage}) and {@code data: [DONE]}. Not thread-safe: one listener
 * thread (the relay's) calls it.
 */
public final class ChatStream {

    private static final String TOOL_CALL_OPEN = "<tool_call>";

    private final String id;
    private final long created;
    private final String model;
    private final ChatRequest request;
    private final int promptTokens;
    private final int[] prompt;
    private final ServedModel served;
    private final Choice[] choices;
    private int finished;
    private int completionTokens;

    public ChatStream(String id, long created, String model, ChatRequest request, int[] prompt, ServedModel served) {
        this.id = id;
        this.created = created;
        this.model = model;
        this.request = request;
        this.prompt = prompt;
        this.promptTokens = prompt.length;
        this.served = served;
        this.choices = new Choice[request.n()];
        for (int i = 0; i < choices.length; i++) choices[i] = new Choice();
    }

    private static final class Choice {
        final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
        ByteBuffer pending = ByteBuffer.allocate(0);
        final StringBuilder text = new StringBuilder();
        int emitted;
        int tokens;
        boolean done;
    }

    /** The opening events: each choice's role (and, with {@code return_token_ids}, the prompt's ids on the first). */
    public List<String> open() {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < choices.length; i++) {
            ObjectNode chunk = ChatResponses.chunk(id, created, model);
            ChatResponses.choiceDelta(chunk, i).with("delta").put("role", "assistant").put("content", "");
            if (i == 0 && request.returnTokenIds()) chunk.set("prompt_token_ids", ChatResponses.ids(prompt));
            out.add(ChatResponses.event(chunk));
        }
        return out;
    }

    /** Tokens of choice {@code index} produced since its previous ones, with their most likely alternatives ({@code top}, indexed as {@code ids}; null when not kept). */
    public List<String> tokens(int index, int[] ids, float[] logprobs, TopLogprobs top) {
        Choice c = choices[index];
        if (c.done || ids.length == 0) return List.of();
        for (int t : ids) decode(c, served.tokenBytes(t));
        c.tokens += ids.length;
        int visible = visibleEnd(c.text);
        String piece = visible > c.emitted ? c.text.substring(c.emitted, visible) : "";
        c.emitted = Math.max(c.emitted, visible);
        if (piece.isEmpty() && !request.logprobs() && !request.returnTokenIds()) return List.of();
        ObjectNode chunk = ChatResponses.chunk(id, created, model);
        ObjectNode choice = ChatResponses.choiceDelta(chunk, index);
        choice.with("delta").put("content", piece);
        ChatResponses.tokenFields(choice, ids, logprobs, top, 0, ids.length, request, served);
        return List.of(ChatResponses.event(chunk));
    }

    /** Choice {@code index} has ended with generation {@code g}; after the last choice, the closing events too. */
    public List<String> done(int index, Generation g) {
        Choice c = choices[index];
        if (c.done) return List.of();
        c.done = true;
        finished++;
        completionTokens += g.tokens().length;
        ChatResponses.Choice read = ChatResponses.choice(index, g, request);
        List<String> out = new ArrayList<>();
        String content = read.content() == null ? "" : read.content();
        // What was streamed is a prefix of the final text unless the model's text was rewritten (tool-call prose).
        String rest = content.length() > c.emitted && content.startsWith(c.text.substring(0, c.emitted))
                ? content.substring(c.emitted) : "";
        int[] tail = Arrays.copyOfRange(g.tokens(), Math.min(c.tokens, g.tokens().length), g.tokens().length);
        float[] tailLogprobs = Arrays.copyOfRange(g.logprobs(), Math.min(c.tokens, g.logprobs().length), g.logprobs().length);
        TopLogprobs tailTop = g.top() == null ? null : g.top().slice(Math.min(c.tokens, g.top().positions()), g.top().positions());
        if (!rest.isEmpty() || (tail.length > 0 && (request.logprobs() || request.returnTokenIds()))) {
            ObjectNode chunk = ChatResponses.chunk(id, created, model);
            ObjectNode choice = ChatResponses.choiceDelta(chunk, index);
            choice.with("delta").put("content", rest);
            ChatResponses.tokenFields(choice, tail, tailLogprobs, tailTop, 0, tail.length, request, served);
            out.add(ChatResponses.event(chunk));
        }
        for (int k = 0; k < read.toolCalls().size(); k++) {
            ToolCall call = read.toolCalls().get(k);
            ObjectNode head = ChatResponses.chunk(id, created, model);
            ObjectNode callHead = ChatResponses.choiceDelta(head, index).with("delta").putArray("tool_calls").addObject();
            callHead.put("index", k).put("id", call.id()).put("type", "function");
            callHead.putObject("function").put("name", call.name()).put("arguments", "");
            out.add(ChatResponses.event(head));
            ObjectNode args = ChatResponses.chunk(id, created, model);
            ObjectNode callArgs = ChatResponses.choiceDelta(args, index).with("delta").putArray("tool_calls").addObject();
            callArgs.put("index", k);
            callArgs.putObject("function").put("arguments", ChatResponses.arguments(call));
            out.add(ChatResponses.event(args));
        }
        ObjectNode last = ChatResponses.chunk(id, created, model);
        ObjectNode lc = ChatResponses.choiceDelta(last, index);
        lc.put("finish_reason", ChatResponses.wire(read.finish()));
        out.add(ChatResponses.event(last));
        if (finished == choices.length) out.addAll(close());
        return out;
    }

    /** Every choice has ended. */
    public boolean complete() {
        return finished == choices.length;
    }

    /** An error after the stream began: an error event, then the end of the stream (as vLLM does). */
    public List<String> failed(ApiError error) {
        finished = choices.length;
        return List.of("data: " + dev.agentswarm.core.json.Json.write(error.body()) + "\n\n", "data: [DONE]\n\n");
    }

    private List<String> close() {
        List<String> out = new ArrayList<>();
        if (request.includeUsage()) {
            ObjectNode usage = ChatResponses.chunk(id, created, model);
            usage.set("usage", ChatResponses.usage(promptTokens, completionTokens));
            out.add(ChatResponses.event(usage));
        }
        out.add("data: [DONE]\n\n");
        return out;
    }

    private static void decode(Choice c, byte[] bytes) {
        ByteBuffer in = ByteBuffer.allocate(c.pending.remaining() + bytes.length);
        in.put(c.pending).put(bytes).flip();
        CharBuffer chars = CharBuffer.allocate(in.remaining() + 2);
        c.decoder.decode(in, chars, false); // a character split across tokens waits for its last byte
        chars.flip();
        c.text.append(chars);
        c.pending = in.slice();
    }

    /**
     * Where the text that is surely part of the content ends: before a {@code <tool_call>} block (tools
     * offered), and before a tail that could be the start of a stop string or of such a block.
     */
    int visibleEnd(CharSequence text) {
        String s = text.toString();
        int end = s.length();
        if (request.toolsOffered()) {
            int open = s.indexOf(TOOL_CALL_OPEN);
            if (open >= 0) end = open;
            end = Math.min(end, s.length() - heldBack(s, TOOL_CALL_OPEN));
        }
        for (String stop : request.stop()) {
            int at = s.indexOf(stop);
            if (at >= 0) end = Math.min(end, at);
            end = Math.min(end, s.length() - heldBack(s, stop));
        }
        return Math.max(end, 0);
    }

    /** The length of the longest tail of {@code s} that is a proper prefix of {@code marker}. */
    static int heldBack(String s, String marker) {
        for (int k = Math.min(marker.length() - 1, s.length()); k > 0; k--) {
            if (s.regionMatches(s.length() - k, marker, 0, k)) return k;
        }
        return 0;
    }
}
