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

    public Task {
        if (id == null || id.isBlank()) throw new IllegalArgumentException("task id must not be blank");
        if (prompt == null) throw new IllegalArgumentException("task " + id + " has no prompt");
        metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
    }

    /** The suite this task belongs to, or null. */
    public String suite() {
        return metadata.get(SUITE);
    }

    public static Task of(String id, String prompt) {
        return new Task(id, prompt, null, Map.of());
    }
}
