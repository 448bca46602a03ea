package dev.agentswarm.policy.chat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Role;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.policy.tokenizer.HfTokenizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Token-exact prompts for a multi-turn episode with a model's own chat template. The first prompt
 * is the rendered conversation; every later prompt is the previous prompt ids + the ids the policy
 * generated + the ids of the rendered text of the new messages (tool results, a user reply) and the
 * generation prompt. Nothing already seen is re-tokenized or re-rendered, so a trajectory's ids are
 * exactly what the policy saw and produced.
 *
 * <p>The new messages' text is {@code render(all, addGenerationPrompt)} minus
 * {@code render(all up to the previous assistant message)} when the second is a textual prefix of
 * the first. Templates are not append-only, though: Qwen3's drops the {@code <think>} block of
 * assistant turns before the last user message, so after a new user message the earlier render is
 * no prefix. Then the suffix is cut from the new render after as many end-of-turn markers (the stop
 * tokens' text, e.g. {@code <|im_end|>}) as the earlier render holds; such fallbacks are counted.
 */
public final class EpisodePrompts {

    /** A next prompt: its ids, the text appended after the generated ids, and whether the fallback cut it. */
    public record Next(int[] ids, String suffix, boolean fallback) {}

    private final HfTokenizer tokenizer;
    private final JinjaChatTemplate template;
    private final JsonNode tools;
    private final Map<String, ?> kwargs;
    private final List<String> markers = new ArrayList<>();
    private final int[] stopIds;
    private final AtomicLong fallbacks = new AtomicLong();

    public EpisodePrompts(HfTokenizer tokenizer, JinjaChatTemplate template, List<ToolSpec> tools, Map<String, ?> kwargs) {
        this.tokenizer = tokenizer;
        this.template = template;
        this.tools = HfMessages.tools(tools);
        this.kwargs = kwargs == null ? Map.of() : Map.copyOf(kwargs);
        this.stopIds = tokenizer.stopIds();
        for (int id : stopIds) markers.add(tokenizer.token(id));
    }

    /** Renders and encodes the whole conversation, ending with the generation prompt. */
    public int[] firstPrompt(List<Message> messages) {
        return tokenizer.encode(render(messages, true));
    }

    /** {@link #next}'s ids. */
    public int[] nextPrompt(int[] previousIds, List<Message> all, int alreadyRendered) {
        return next(previousIds, all, alreadyRendered).ids();
    }

    /**
     * The prompt after a generated assistant turn.
     *
     * @param previousIds     the previous prompt's ids followed by the ids the policy generated
     * @param all             the whole conversation so far, the generated assistant message included
     * @param alreadyRendered how many leading messages of {@code all} {@code previousIds} covers; the
     *                        last of them is the generated assistant message
     */
    public Next next(int[] previousIds, List<Message> all, int alreadyRendered) {
        if (alreadyRendered < 1 || alreadyRendered > all.size() || all.get(alreadyRendered - 1).role() != Role.ASSISTANT) {
            throw new IllegalArgumentException("alreadyRendered must count the messages up to the generated assistant message (got "
                    + alreadyRendered + " of " + all.size() + ")");
        }
        String before = render(all.subList(0, alreadyRendered), false);
        String full = render(all, true);
        int cut;
        boolean fallback = !full.startsWith(before);
        if (!fallback) {
            cut = afterLastMarker(before);
        } else {
            cut = afterNthMarker(full, countMarkers(before));
            fallbacks.incrementAndGet();
        }
        String suffix = full.substring(cut);
        boolean endedWithStop = previousIds.length > 0 && Arrays.stream(stopIds).anyMatch(s -> s == previousIds[previousIds.length - 1]);
        if (!endedWithStop && !markers.isEmpty()) suffix = markers.get(0) + suffix; // a cut-off turn is closed as the template closes it
        int[] add = tokenizer.encode(suffix);
        int[] ids = Arrays.copyOf(previousIds, previousIds.length + add.length);
        System.arraycopy(add, 0, ids, previousIds.length, add.length);
        return new Next(ids, suffix, fallback);
    }

    /** How many next prompts needed the fallback (the template re-rendered earlier turns differently). */
    public long fallbacks() {
        return fallbacks.get();
    }

    private String render(List<Message> messages, boolean addGenerationPrompt) {
        return template.render(HfMessages.messages(messages), tools, addGenerationPrompt, kwargs);
    }

    private int afterLastMarker(String text) {
        int best = -1;
        for (String m : markers) {
            int at = text.lastIndexOf(m);
            if (at >= 0) best = Math.max(best, at + m.length());
        }
        return best < 0 ? text.length() : best;
    }

    private int countMarkers(String text) {
        int n = 0;
        for (int at = nextMarker(text, 0); at >= 0; at = nextMarker(text, at)) n++;
        return n;
    }

    private int afterNthMarker(String text, int n) {
        int at = 0;
        for (int i = 0; i < n; i++) {
            at = nextMarker(text, at);
            if (at < 0) {
                throw new IllegalStateException("the chat template renders fewer end-of-turn markers " + markers
                        + " once new messages are added; cannot extend the episode token-exactly");
            }
        }
        return at;
    }

    /** The position just after the next marker at or after {@code from}, or -1. */
    private int nextMarker(String text, int from) {
        int best = -1;
        int bestEnd = -1;
        for (String m : markers) {
            int at = text.indexOf(m, from);
            if (at >= 0 && (best < 0 || at < best)) {
                best = at;
                bestEnd = at + m.length();
            }
        }
        return bestEnd;
    }
}
