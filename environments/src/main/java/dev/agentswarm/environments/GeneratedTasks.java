package dev.agentswarm.environments;

import dev.agentswarm.core.protocol.Task;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * Draws a generated suite's tasks of one split: a seeded stream of drafts, each kept when its key
 * hashes into the split ({@link Split#byHash}) and was not drawn before. Rejection sampling visits
 * about ten drafts per held-out task; a stream that cannot yield enough distinct ones fails clearly.
 */
public final class GeneratedTasks {

    /** Makes the task of a kept draft; {@code metadata} already holds the suite and the split. */
    public interface Maker<D> {
        Task make(String id, Map<String, String> metadata, D draft);
    }

    private GeneratedTasks() {}

    /**
     * @param draw the next draft from the stream, or null to skip one (a division by zero drawn by chance)
     * @param key what makes a draft distinct (its expression, its plugins and values)
     */
    public static <D> List<Task> generate(String suite, Split split, int limit, long seed,
                                          Function<SplittableRandom, D> draw, Function<D, String> key, Maker<D> maker) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<Task> tasks = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        long attempts = 0;
        while (tasks.size() < limit) {
            if (++attempts > 1000L * (limit + 10)) {
                throw new IllegalStateException(suite + ": could not draw " + limit + " distinct " + split.label()
                        + " tasks (got " + tasks.size() + "); widen the generator's ranges");
            }
            D draft = draw.apply(rnd);
            if (draft == null) continue;
            String k = key.apply(draft);
            if (Split.byHash(k) != split || !seen.add(k)) continue;
            Map<String, String> metadata = new LinkedHashMap<>();
            metadata.put(Task.SUITE, suite);
            metadata.put(Task.SPLIT, split.label());
            tasks.add(maker.make(suite + "-" + split.label() + "-" + tasks.size(), metadata, draft));
        }
        return tasks;
    }
}
