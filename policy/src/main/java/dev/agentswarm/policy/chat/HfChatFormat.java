package dev.agentswarm.policy.chat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Role;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.policy.tokenizer.HfTokenizer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Hugging Face model's own chat template and tokenizer as a {@link ChatFormat}: prompts are the
 * template rendered as {@code apply_chat_template(…, add_generation_prompt=True)} with the
 * configured template variables (Qwen3's {@code enable_thinking}, Llama-3's {@code date_string}…),
 * then encoded without added special tokens, which is what {@code apply_chat_template(tokenize=True)}
 * gives. Special tokens written in message text match as special tokens, as in transformers.
 *
 * <p>The loss mask of a training conversation covers each assistant message as the whole rendering
 * shows it: from where the prompt that asked for it (the messages before it, rendered with the
 * generation prompt) parts from the rendering, through its first stop token. Templates are not
 * append-only: Qwen3 writes an empty {@code <think>} block after the generation prompt but not in
 * an earlier assistant turn, and drops the reasoning of turns before the last user message. The
 * whole rendering is what a conversation trains on; a turn whose preceding messages do not render
 * as a prefix of it stays in the context untrained and is counted in {@link #untrainedTurns()}.
 * Token-exact training of what a policy saw turn by turn uses each turn's own prompt and
 * completion ids instead (the trajectory keeps them).
 */
public final class HfChatFormat implements ChatFormat {

    private final JinjaChatTemplate template;
    private final HfTokenizer tokenizer;
    private final Map<String, Object> variables;
    private final int[] stops;
    private long untrainedTurns;

    /** The date templates see unless {@code date_string} is given: Llama-3's own fallback. */
    public static final String PINNED_DATE = "26 Jul 2024";

    /**
     * A model folder's tokenizer and chat template. Rollout and training render the same prompts only
     * if the template sees the same date on every node and day (Llama-3's reads strftime_now
     * otherwise), so {@code date_string} is pinned unless {@code variables} sets it. The caller
     * closes the format's tokenizer.
     */
    public static HfChatFormat load(Path dir, Map<String, Object> variables) throws IOException {
        HfTokenizer tokenizer = HfTokenizer.load(dir);
        try {
            Map<String, Object> vars = new LinkedHashMap<>(variables);
            vars.putIfAbsent("date_string", PINNED_DATE);
            return new HfChatFormat(JinjaChatTemplate.load(dir), tokenizer, vars);
        } catch (IOException | RuntimeException e) {
            tokenizer.close();
            throw e;
        }
    }

    public HfChatFormat(JinjaChatTemplate template, HfTokenizer tokenizer, Map<String, Object> variables) {
        this.template = template;
        this.tokenizer = tokenizer;
        this.variables = Map.copyOf(variables);
        this.stops = tokenizer.stopIds();
    }

    @Override
    public HfTokenizer tokenizer() {
        return tokenizer;
    }

    /** Token-exact next prompts for episodes using these tools: previous ids + generated ids + the new messages' ids. */
    public EpisodePrompts episodePrompts(List<ToolSpec> tools) {
        return new EpisodePrompts(tokenizer, template, tools, variables);
    }

    /** The template variables every rendering gets. */
    public Map<String, Object> variables() {
        return variables;
    }

    public String render(List<Message> messages, List<ToolSpec> tools, boolean addGenerationPrompt) {
        return template.render(HfMessages.messages(messages), HfMessages.tools(tools), addGenerationPrompt, variables);
    }

    @Override
    public int[] prompt(List<Message> messages, List<ToolSpec> tools) {
        return tokenizer.encode(render(messages, tools, true));
    }

    @Override
    public Rendered conversation(List<Message> messages, List<ToolSpec> tools) {
        ArrayNode all = HfMessages.messages(messages);
        JsonNode toolSpecs = HfMessages.tools(tools);
        String full = template.render(all, toolSpecs, false, variables);
        int[] ids = tokenizer.encode(full);
        int[] mask = new int[ids.length];
        for (int i = 0; i < messages.size(); i++) {
            if (messages.get(i).role() != Role.ASSISTANT) continue;
            // The turn starts where the prompt that asked for it (rendered with the generation prompt)
            // parts from the whole conversation, and ends with its first stop token.
            String closed = template.render(head(all, i), toolSpecs, false, variables);
            String asked = template.render(head(all, i), toolSpecs, true, variables);
            int[] closedIds = full.startsWith(closed) ? tokenizer.encode(closed) : null;
            // In tokens, not characters: "<think>" and "<tool_call>" share a first character, not a token.
            int start = commonPrefix(tokenizer.encode(asked), ids);
            if (closedIds == null || start < closedIds.length || !startsWith(ids, closedIds)) {
                untrainedTurns++;
                continue;
            }
            for (int k = start; k < ids.length; k++) {
                mask[k] = 1;
                if (isStop(ids[k])) break; // the newline a template puts after the end token is not the model's to learn
            }
        }
        return new Rendered(ids, mask);
    }

    private static int commonPrefix(int[] a, int[] b) {
        int n = Math.min(a.length, b.length);
        int i = 0;
        while (i < n && a[i] == b[i]) i++;
        return i;
    }

    /** Assistant turns left untrained because the messages before them render differently once later ones follow. */
    public long untrainedTurns() {
        return untrainedTurns;
    }

    @Override
    public int[] stopTokenIds() {
        return stops.clone();
    }

    private boolean isStop(int id) {
        for (int s : stops) if (s == id) return true;
        return false;
    }

    private static ArrayNode head(ArrayNode all, int n) {
        ArrayNode out = Json.MAPPER.createArrayNode();
        for (int i = 0; i < n; i++) out.add(all.get(i));
        return out;
    }

    private static boolean startsWith(int[] ids, int[] prefix) {
        return prefix.length <= ids.length && Arrays.equals(ids, 0, prefix.length, prefix, 0, prefix.length);
    }
}
