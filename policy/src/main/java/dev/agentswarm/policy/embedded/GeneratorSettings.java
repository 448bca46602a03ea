package dev.agentswarm.policy.embedded;

import com.typesafe.config.Config;

/**
 * Capacity of a {@link BatchGenerator}: {@code slots} sequences decode together (the KV cache holds
 * that many); {@code maxQueued} wait beyond them before new requests are refused; one prefill admits
 * at most {@code maxPrefillTokens} padded prompt tokens, so a burst of long prompts cannot stall the
 * running sequences for long.
 */
public record GeneratorSettings(int slots, int maxQueued, int maxPrefillTokens, long seed) {

    public static final String CONFIG_PATH = "agentswarm.policy.embedded.server";

    public GeneratorSettings {
        if (slots <= 0) throw new IllegalArgumentException("max-batch must be > 0, got " + slots);
        if (maxQueued < 0) throw new IllegalArgumentException("max-queued must be >= 0, got " + maxQueued);
        if (maxPrefillTokens <= 0) throw new IllegalArgumentException("max-prefill-tokens must be > 0, got " + maxPrefillTokens);
    }

    public static GeneratorSettings fromConfig(Config root) {
        Config c = root.getConfig(CONFIG_PATH);
        return new GeneratorSettings(c.getInt("max-batch"), c.getInt("max-queued"), c.getInt("max-prefill-tokens"),
                c.getLong("seed"));
    }
}
