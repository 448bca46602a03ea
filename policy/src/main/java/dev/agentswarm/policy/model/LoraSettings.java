package dev.agentswarm.policy.model;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * A LoRA adapter's shape under PEFT's names: rank {@code r}, {@code lora_alpha} (the update is
 * scaled by alpha / r), {@code lora_dropout} on the adapter's input while training, and the target
 * modules. The trainers take one of these (null meaning full fine-tuning); the learner's
 * configuration holds it under {@value #PATH}.
 */
public record LoraSettings(int rank, double alpha, double dropout, Set<LoraTarget> targets) {

    /** The configuration block: {@code enabled}, {@code rank}, {@code alpha}, {@code dropout}, {@code targets}. */
    public static final String PATH = "agentswarm.learner.lora";

    public LoraSettings {
        if (rank < 1) throw new IllegalArgumentException(PATH + ".rank must be >= 1, got " + rank);
        if (!(alpha > 0) || Double.isInfinite(alpha)) throw new IllegalArgumentException(PATH + ".alpha must be > 0, got " + alpha);
        if (!(dropout >= 0 && dropout < 1)) throw new IllegalArgumentException(PATH + ".dropout must be in [0, 1), got " + dropout);
        if (targets == null || targets.isEmpty()) {
            throw new IllegalArgumentException(PATH + ".targets must name at least one module (or all-linear)");
        }
        targets = Collections.unmodifiableSet(EnumSet.copyOf(targets));
    }

    /** Every linear layer, PEFT's {@code all-linear}. */
    public static LoraSettings allLinear(int rank, double alpha, double dropout) {
        return new LoraSettings(rank, alpha, dropout, EnumSet.allOf(LoraTarget.class));
    }

    /** alpha / r: what B·A is multiplied by (PEFT's {@code scaling} without rsLoRA). */
    public double scaling() {
        return alpha / rank;
    }

    /** The block at {@value #PATH}; empty when its {@code enabled} is false (full fine-tuning). */
    public static Optional<LoraSettings> fromConfig(Config root) {
        if (!root.hasPath(PATH)) return Optional.empty();
        Config c = root.getConfig(PATH);
        try {
            if (!c.getBoolean("enabled")) return Optional.empty();
            return Optional.of(new LoraSettings(c.getInt("rank"), c.getDouble("alpha"), c.getDouble("dropout"),
                    LoraTarget.parseAll(c.getStringList("targets"))));
        } catch (ConfigException e) {
            throw new IllegalArgumentException(PATH + ": " + e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            String m = e.getMessage();
            throw new IllegalArgumentException(m.startsWith(PATH) ? m : PATH + ".targets: " + m, e);
        }
    }
}
