package dev.agentswarm.learner.rl;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import dev.agentswarm.learner.optim.AdamW;

/**
 * The {@code agentswarm.learner.grpo} block, under TRL's and verl's names: the loss, how groups
 * become samples, and the optimizer step. Every validation error names its key.
 */
public record GrpoSettings(int numGenerations, PolicyLoss.Settings loss, RolloutGroups.Settings groups, double learningRate,
                           double maxGradNorm, int numIterations, int microBatchRows, AdamW.Settings adam) {

    public static final String PATH = "agentswarm.learner.grpo";

    public GrpoSettings {
        if (numGenerations < 2) throw new IllegalArgumentException(PATH + ".num-generations must be >= 2, got " + numGenerations);
        if (!(learningRate > 0)) throw new IllegalArgumentException(PATH + ".learning-rate must be > 0, got " + learningRate);
        if (maxGradNorm < 0) throw new IllegalArgumentException(PATH + ".max-grad-norm must be >= 0 (0 = no clipping), got " + maxGradNorm);
        if (numIterations < 1) throw new IllegalArgumentException(PATH + ".num-iterations must be >= 1, got " + numIterations);
        if (microBatchRows < 1) throw new IllegalArgumentException(PATH + ".micro-batch-rows must be >= 1, got " + microBatchRows);
    }

    /**
     * From the block at {@link #PATH} of {@code root}; {@code maxTokens} is the episodes' completion
     * limit per turn ({@code agentswarm.episode.sampling.max-tokens}), where the overlong buffer ends.
     */
    public static GrpoSettings fromConfig(Config root, int maxTokens) {
        Config c = root.getConfig(PATH);
        try {
            PolicyLoss.Settings loss;
            RolloutGroups.Settings groups;
            try {
                loss = new PolicyLoss.Settings(PolicyLoss.Type.parse(c.getString("loss-type")), c.getDouble("epsilon"),
                        c.getDouble("epsilon-high"), c.getDouble("beta"), c.getDouble("tis-cap"));
                groups = new RolloutGroups.Settings(GroupAdvantages.Scale.parse(c.getString("scale-rewards")),
                        c.getBoolean("mask-truncated-completions"), c.getBoolean("dynamic-sampling"), maxTokens,
                        c.getInt("overlong-buffer-len"), c.getDouble("overlong-penalty-factor"));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(PATH + ": " + e.getMessage(), e);
            }
            AdamW.Settings adam = AdamW.Settings.fromConfig(c.getConfig("adam"), PATH + ".adam");
            return new GrpoSettings(c.getInt("num-generations"), loss, groups, c.getDouble("learning-rate"), c.getDouble("max-grad-norm"),
                    c.getInt("num-iterations"), c.getInt("micro-batch-rows"), adam);
        } catch (ConfigException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }
}
