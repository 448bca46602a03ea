package dev.agentswarm.core.protocol;

import dev.agentswarm.core.CborSerializable;
import java.util.Map;

/**
 * A task an episode works on: its id, the prompt the policy reads, the reference answer when
 * one is known (for rewards), and free-form metadata (suite, split, difficulty…).
 */
public record Task(String id, String prompt, String answer, Map<String, String> metadata) implements CborSerializable {

    /** Metadata key naming the suite a task comes from; its environment and reward come with it. */
    public static final String SUITE = "suite";

    /** Metadata key naming the split (train, heldout) a task was drawn from. */
    public static final String SPLIT = "split";

    /**
     * Metadata key, {@code "true"} for an episode that works on a part of its task (a swarm's
     * sub-agent): it gets the task's environment — its suite's tools and their state — but is not
     * scored, since the task's reward judges the whole answer.
     */
    public static final String PART = "part";

    public Task {
        if (id == null || id.isBlank()) throw new IllegalArgumentException("task id must not be blank");
        if (prompt == null) throw new IllegalArgumentException("task " + id + " has no prompt");
        metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
    }

    /** The suite this task belongs to, or null. */
    public String suite() {
        return metadata.get(SUITE);
    }

    /** A part of this task, asked by {@code prompt}: the same id, answer and suite (so the same environment), not scored. */
    public Task part(String prompt) {
        java.util.Map<String, String> m = new java.util.HashMap<>(metadata);
        m.put(PART, "true");
        return new Task(id, prompt, answer, m);
    }

    /** Whether this is a {@link #part} of a task. */
    public boolean isPart() {
        return "true".equals(metadata.get(PART));
    }

    public static Task of(String id, String prompt) {
        return new Task(id, prompt, null, Map.of());
    }
}
