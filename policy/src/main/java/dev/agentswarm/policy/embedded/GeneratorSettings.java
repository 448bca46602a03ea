package dev.agentswarm.policy.embedded;

import com.typesafe.config.Config;
import java.util.Locale;

/**
 * Capacity and decode path of a {@link BatchGenerator}: {@code slots} sequences decode together (the
 * KV cache holds that many); {@code maxQueued} wait beyond them before new requests are refused; one
 * prefill admits at most {@code maxPrefillTokens} padded prompt tokens, so a burst of long prompts
 * cannot stall the running sequences for long. {@code decoder} picks how a decode step runs (see
 * {@link Decoder}); hybrid steps of at most {@code javaAttentionRows} sequences also attend in Java.
 */
public record GeneratorSettings(int slots, int maxQueued, int maxPrefillTokens, long seed, Decoder decoder,
                                int javaAttentionRows) {

    /** How a decode step runs. */
    public enum Decoder {
        /** libtorch for the products, the glue in Java on shared memory: the fast path on CPU. */
        HYBRID,
        /** DJL ops throughout ({@code CausalLm.decode}): the reference path, and the one used on a GPU. */
        ENGINE;

        public static Decoder parse(String name) {
            try {
                return valueOf(name.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("decoder must be hybrid or engine, got \"" + name + "\"");
            }
        }
    }

    /** Where Java attention stops paying on the `small` shape (see BENCHMARKS.md). */
    public static final int DEFAULT_JAVA_ATTENTION_ROWS = 2;

    public static final String CONFIG_PATH = "agentswarm.policy.embedded.server";

    public GeneratorSettings(int slots, int maxQueued, int maxPrefillTokens, long seed) {
        this(slots, maxQueued, maxPrefillTokens, seed, Decoder.HYBRID, DEFAULT_JAVA_ATTENTION_ROWS);
    }

    public GeneratorSettings {
        if (slots <= 0) throw new IllegalArgumentException("max-batch must be > 0, got " + slots);
        if (maxQueued < 0) throw new IllegalArgumentException("max-queued must be >= 0, got " + maxQueued);
        if (maxPrefillTokens <= 0) throw new IllegalArgumentException("max-prefill-tokens must be > 0, got " + maxPrefillTokens);
        if (decoder == null) throw new IllegalArgumentException("decoder must be hybrid or engine");
        if (javaAttentionRows < 0) {
            throw new IllegalArgumentException("java-attention-rows must be >= 0, got " + javaAttentionRows);
        }
    }

    public static GeneratorSettings fromConfig(Config root) {
        Config c = root.getConfig(CONFIG_PATH);
        return new GeneratorSettings(c.getInt("max-batch"), c.getInt("max-queued"), c.getInt("max-prefill-tokens"),
                c.getLong("seed"), Decoder.parse(c.getString("decoder")), c.getInt("java-attention-rows"));
    }
}
