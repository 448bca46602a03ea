package dev.agentswarm.workers;

import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Role;
import dev.agentswarm.policy.chat.ChatFormat;
import dev.agentswarm.policy.chat.HfChatFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Prompts that grow by what an episode adds instead of being rendered again. With a model's own
 * chat template ({@link HfChatFormat}) the next prompt of an episode is the previous prompt ids + the
 * ids the policy generated + the ids of the new messages (tool results, a user reply): what the
 * model conditioned on stays exactly what it saw and produced, even where the template would
 * render earlier turns differently (Qwen3 drops earlier reasoning) or its own text would encode
 * to other ids. The first turn, a turn whose earlier messages changed (a compressed context), an
 * episode forgotten (the newest {@code capacity} are kept) and the project's own format render the
 * conversation as a whole.
 */
final class EpisodeContexts {

    /** What an episode's last prompt covered: the request's messages, and its prompt ids followed by the generated ids. */
    private record Seen(List<Message> messages, int[] ids) {}

    private final ChatFormat format;
    private final Map<String, Seen> byEpisode;
    private long extended;
    private long rendered;

    EpisodeContexts(ChatFormat format, int capacity) {
        this.format = format;
        this.byEpisode = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Seen> eldest) {
                return size() > capacity;
            }
        };
    }

    /** The prompt ids for {@code request}. */
    int[] prompt(CompletionRequest request) {
        List<Message> messages = request.messages();
        Seen seen;
        synchronized (this) {
            seen = format instanceof HfChatFormat ? byEpisode.get(request.episodeId()) : null;
        }
        int k = seen == null ? -1 : seen.messages().size();
        if (seen != null && messages.size() > k + 1 && messages.get(k).role() == Role.ASSISTANT
                && messages.subList(0, k).equals(seen.messages())) {
            int[] ids = ((HfChatFormat) format).episodePrompts(request.tools()).nextPrompt(seen.ids(), messages, k + 1);
            synchronized (this) {
                extended++;
            }
            return ids;
        }
        synchronized (this) {
            rendered++;
        }
        return format.prompt(messages, request.tools());
    }

    /** Remembers what the policy conditioned on and produced for the episode's next turn. */
    void answered(CompletionRequest request, int[] prompt, int[] generated) {
        if (!(format instanceof HfChatFormat)) return;
        int[] ids = new int[prompt.length + generated.length];
        System.arraycopy(prompt, 0, ids, 0, prompt.length);
        System.arraycopy(generated, 0, ids, prompt.length, generated.length);
        synchronized (this) {
            byEpisode.put(request.episodeId(), new Seen(request.messages(), ids));
        }
    }

    /** Prompts that extended the episode's previous one. */
    synchronized long extended() {
        return extended;
    }

    /** Prompts rendered from the whole conversation. */
    synchronized long rendered() {
        return rendered;
    }
}
