package dev.agentswarm.policy.embedded;

import com.typesafe.config.Config;

/**
 * Capacity of a {@link BatchGenerator}: {@code slots} sequences decode together (the KV cache holds
 * that many); {@code maxQueued} wait beyond them before new requests are refused; one prefill admits
 * at most {@code maxPrefillTokens} padded prompt tokens, so a burst of long prompts cannot stall the
 * running sequences for long. Steps of at most {@code smallBatch} running sequences take the
 * small-batch decoder (one native call per weight matrix, the rest in Java); larger ones decode with
 * whole-batch engine ops. 0 turns the small-batch decoder off.
 */
public record GeneratorSettings(int slots, int maxQueued, int maxPrefillTokens, long seed, int smallBatch) {

    /** The small-batch bound measured best on the `small` shape (see BENCHMARKS.md). */
    public static final int DEFAULT_SMALL_BATCH = 8;

    public GeneratorSettings(int slots, int maxQueued, int maxPrefillTokens, long seed) {
        this(slots, maxQueued, maxPrefillTokens, seed, DEFAULT_SMALL_BATCH);
    }

    public static final String CONFIG_PATH = "agentswarm.policy.embedded.server";

    public GeneratorSettings {
        if (slots <= 0) throw new IllegalArgumentException("max-batch must be > 0, got " + slots);
        if (maxQueued < 0) throw new IllegalArgumentException("max-queued must be >= 0, got " + maxQueued);
        if (maxPrefillTokens <= 0) throw new IllegalArgumentException("max-prefill-tokens must be > 0, got " + maxPrefillTokens);
        if (smallBatch < 0) throw new IllegalArgumentException("small-batch must be >= 0, got " + smallBatch);
    }

    public static GeneratorSettings fromConfig(Config root) {
        Config c = root.getConfig(CONFIG_PATH);
        return new GeneratorSettings(c.getInt("max-batch"), c.getInt("max-queued"), c.getInt("max-prefill-tokens"),
                c.getLong("seed"), c.getInt("small-batch"));
    }
}
