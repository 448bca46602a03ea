package dev.agentswarm.policy.chat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Role;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.policy.tokenizer.BpeTokenizer;
import java.util.ArrayList;
import java.util.List;

/**
 * ChatML as Qwen renders it, for the embedded model: one {@code <|im_start|>role\n…<|im_end|>\n}
 * block per message; native tool specs in the system block inside {@code <tools>}; an assistant's
 * native tool calls as {@code <tool_call>} JSON blocks; consecutive tool results in one user block
 * of {@code <tool_response>}s. The same rendering serves the prompt of a completion and a training
 * conversation, so what the model is trained on is exactly what it is later asked.
 *
 * <p>The loss mask marks the tokens the model must learn to produce: an assistant's content and its
 * closing {@code <|im_end|>} (so it learns to stop); never the {@code <|im_start|>assistant\n} header,
 * which the prompt supplies.
 */
public final class ChatTemplate implements ChatFormat {

    private static final String TOOLS_PREAMBLE = "# Tools\n\nYou may call one or more functions. Their signatures,"
            + " within <tools></tools>:\n<tools>\n";
    private static final String TOOLS_CLOSING = "</tools>\n\nFor each call, return a JSON object with the function"
            + " name and arguments within <tool_call></tool_call> tags:\n<tool_call>\n"
            + "{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>";

    private final BpeTokenizer tokenizer;
    private final int imStart;
    private final int imEnd;
    private final int[] stopIds;

    public ChatTemplate(BpeTokenizer tokenizer) {
        this.tokenizer = tokenizer;
        this.imStart = tokenizer.imStartId();
        this.imEnd = tokenizer.imEndId();
        this.stopIds = new int[] {imEnd, tokenizer.eosId()};
    }

    @Override
    public BpeTokenizer tokenizer() {
        return tokenizer;
    }

    /** Token ids that end an assistant turn: {@code <|im_end|>} and {@code <|endoftext|>}. */
    public int[] stopTokenIds() {
        return stopIds.clone();
    }

    /** The prompt for the next assistant turn: every message, then the open {@code <|im_start|>assistant\n}. */
    public int[] prompt(List<Message> messages, List<ToolSpec> tools) {
        Builder b = new Builder();
        render(messages, tools, b, false);
        b.header("assistant");
        return b.ids();
    }

    /** A whole conversation for training; the loss mask covers each assistant message and its {@code <|im_end|>}. */
    public Rendered conversation(List<Message> messages, List<ToolSpec> tools) {
        Builder b = new Builder();
        render(messages, tools, b, true);
        return new Rendered(b.ids(), b.mask());
    }

    /** The text of an assistant message as the model writes it: content, then one {@code <tool_call>} block per call. */
    public static String assistantText(Message m) {
        StringBuilder sb = new StringBuilder(m.content());
        for (ToolCall call : m.toolCalls()) {
            if (sb.length() > 0) sb.append('\n');
            ObjectNode node = Json.MAPPER.createObjectNode();
            node.put("name", call.name());
            node.set("arguments", call.arguments() == null ? Json.MAPPER.createObjectNode() : call.arguments());
            sb.append("<tool_call>\n").append(node).append("\n</tool_call>");
        }
        return sb.toString();
    }

    private void render(List<Message> messages, List<ToolSpec> tools, Builder b, boolean train) {
        int i = 0;
        if (!messages.isEmpty() && messages.get(0).role() == Role.SYSTEM) {
            b.block("system", withTools(messages.get(0).content(), tools), 0);
            i = 1;
        } else if (!tools.isEmpty()) {
            b.block("system", withTools("", tools), 0);
        }
        for (; i < messages.size(); i++) {
            Message m = messages.get(i);
            switch (m.role()) {
                case SYSTEM -> b.block("system", m.content(), 0); // a later system message stays where it was
                case USER -> b.block("user", m.content(), 0);
                case ASSISTANT -> b.block("assistant", assistantText(m), train ? 1 : 0);
                case TOOL -> {
                    // Tool output is untrusted: its text never becomes control tokens, only the tags do.
                    b.header("user");
                    int j = i;
                    for (; j < messages.size() && messages.get(j).role() == Role.TOOL; j++) {
                        b.add(tokenizer.encode((j > i ? "\n" : "") + "<tool_response>\n"), 0);
                        b.add(tokenizer.encode(messages.get(j).content(), false), 0);
                        b.add(tokenizer.encode("\n</tool_response>"), 0);
                    }
                    b.end(0);
                    i = j - 1;
                }
            }
        }
    }

    private static String withTools(String system, List<ToolSpec> tools) {
        if (tools.isEmpty()) return system;
        StringBuilder sb = new StringBuilder(system);
        if (!system.isEmpty()) sb.append("\n\n");
        sb.append(TOOLS_PREAMBLE);
        for (ToolSpec t : tools) {
            ObjectNode fn = Json.MAPPER.createObjectNode();
            fn.put("type", "function");
            ObjectNode f = fn.putObject("function");
            f.put("name", t.name());
            f.put("description", t.description());
            if (t.parameters() != null) f.set("parameters", t.parameters());
            sb.append(fn).append('\n');
        }
        return sb.append(TOOLS_CLOSING).toString();
    }

    /** Accumulates ids and their loss mask. Message text is encoded with specials allowed: tags are single ids. */
    private final class Builder {
        private final List<int[]> pieces = new ArrayList<>();
        private final List<Integer> masks = new ArrayList<>();
        private int length;

        void header(String role) {
            add(new int[] {imStart}, 0);
            add(tokenizer.encode(role + "\n"), 0);
        }

        void block(String role, String content, int mask) {
            header(role);
            add(tokenizer.encode(content), mask);
            end(mask);
        }

        /** {@code <|im_end|>} (trained when the block is) and the newline between blocks (never trained). */
        void end(int mask) {
            add(new int[] {imEnd}, mask);
            add(tokenizer.encode("\n"), 0);
        }

        void add(int[] ids, int mask) {
            pieces.add(ids);
            masks.add(mask);
            length += ids.length;
        }

        int[] ids() {
            int[] out = new int[length];
            int at = 0;
            for (int[] p : pieces) {
                System.arraycopy(p, 0, out, at, p.length);
                at += p.length;
            }
            return out;
        }

        int[] mask() {
            int[] out = new int[length];
            int at = 0;
            for (int k = 0; k < pieces.size(); k++) {
                int[] p = pieces.get(k);
                java.util.Arrays.fill(out, at, at + p.length, masks.get(k));
                at += p.length;
            }
            return out;
        }
    }
}
