package dev.agentswarm.learner.rl;

import ai.djl.ndarray.NDArray;
import java.util.Locale;

/**
 * The clipped policy-gradient loss of the GRPO family, on per-token log-probs (B, T) of one
 * micro-batch whose completion tokens are marked by {@code mask} (prompt, tool and padding tokens
 * are 0, so they never reach the loss).
 *
 * <p>Per token: ratio = exp(logp − old), the surrogate −min(ratio·A, clip(ratio, 1 − ε, 1 + ε_high)·A)
 * (ε_high above ε is seed 002's and DAPO's clip-higher), times a truncated importance weight
 * min(exp(old − sampler), C) when the sampler's log-probs differ from the learner's (TIS), plus β
 * times the k3 estimate of KL to the reference, exp(ref − logp) − (ref − logp) − 1.
 *
 * <p>{@code loss-type} decides how tokens are averaged, over the whole accumulated batch so that
 * micro-batches add up to the batch's loss: {@code dapo} (the default) divides the token sum by all
 * completion tokens of the batch; {@code grpo} averages each sequence over its own tokens, then over
 * sequences (length-biased); {@code dr_grpo} divides by sequences × max completion length (a
 * constant); {@code bnpo} divides each micro-batch by its own tokens, then by the micro-batch count.
 */
public final class PolicyLoss {

    /** How per-token terms become the loss. */
    public enum Type {
        GRPO, DAPO, DR_GRPO, BNPO;

        public static Type parse(String s) {
            for (Type t : values()) if (t.name().equalsIgnoreCase(s.trim())) return t;
            throw new IllegalArgumentException("loss-type takes grpo, dapo, dr_grpo or bnpo, got \"" + s + "\"");
        }

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * @param tisCap the truncated importance sampling cap C; 0 turns the correction off
     */
    public record Settings(Type type, double epsilon, double epsilonHigh, double beta, double tisCap) {
        public Settings {
            if (!(epsilon > 0 && epsilon < 1)) throw new IllegalArgumentException("epsilon must be in (0, 1), got " + epsilon);
            if (!(epsilonHigh >= epsilon)) throw new IllegalArgumentException("epsilon-high must be >= epsilon, got " + epsilonHigh);
            if (!(beta >= 0)) throw new IllegalArgumentException("beta must be >= 0, got " + beta);
            if (!(tisCap == 0 || tisCap >= 1)) throw new IllegalArgumentException("tis-cap must be 0 (off) or >= 1, got " + tisCap);
        }
    }

    /**
     * What the whole accumulated batch holds, known on the host before the first backward: its
     * completion tokens, sequences and micro-batches, and the longest completion allowed (dr_grpo).
     */
    public record Batch(long tokens, int sequences, int microBatches, int maxCompletionLength) {}

    /**
     * One micro-batch's loss (its share of the batch's) and, per masked token, its statistics:
     * sums over its completion tokens of the clipped indicator, of the k3 KL and of the ratio.
     */
    public record Terms(NDArray loss, double clippedTokens, double klSum, double ratioSum, long tokens) {}

    private final Settings settings;

    public PolicyLoss(Settings settings) {
        this.settings = settings;
    }

    public Settings settings() {
        return settings;
    }

    /**
     * @param logp the learner's log-probs (B, T), with a graph to differentiate
     * @param old the log-probs the ratio is taken against (B, T): the learner's own before this
     *     batch's first update
     * @param sampler the log-probs the tokens were sampled with (B, T), or null when they are {@code old}
     * @param ref the reference model's log-probs (B, T), or null when beta is 0
     * @param advantages one per sequence (B)
     * @param mask 1 on completion tokens (B, T)
     */
    public Terms compute(NDArray logp, NDArray old, NDArray sampler, NDArray ref, NDArray advantages, NDArray mask, Batch batch) {
        NDArray a = advantages.expandDims(1);
        NDArray ratio = logp.sub(old).exp();
        NDArray clipped = ratio.clip((float) (1 - settings.epsilon()), (float) (1 + settings.epsilonHigh()));
        NDArray perToken = ratio.mul(a).minimum(clipped.mul(a)).neg();
        if (settings.tisCap() > 0 && sampler != null) {
            perToken = perToken.mul(old.sub(sampler).exp().minimum((float) settings.tisCap()));
        }
        NDArray kl = null;
        if (settings.beta() > 0) {
            if (ref == null) throw new IllegalArgumentException("beta > 0 needs the reference model's log-probs");
            NDArray d = ref.sub(logp);
            kl = d.exp().sub(d).sub(1f);
            perToken = perToken.add(kl.mul((float) settings.beta()));
        }
        NDArray masked = perToken.mul(mask);
        long tokens = (long) mask.sum().getFloat();
        // Divisors as float: a double or long scalar would promote the loss to another type.
        NDArray loss = switch (settings.type()) {
            case DAPO -> masked.sum().div((float) Math.max(1, batch.tokens()));
            case GRPO -> masked.sum(new int[] {1}).div(mask.sum(new int[] {1}).maximum(1f)).sum().div((float) Math.max(1, batch.sequences()));
            case DR_GRPO -> masked.sum().div((float) Math.max(1, batch.sequences()) * batch.maxCompletionLength());
            case BNPO -> masked.sum().div((float) Math.max(1, tokens) * Math.max(1, batch.microBatches()));
        };
        // Statistics without a graph: which tokens the clip held back (the side that binds for their advantage's sign).
        NDArray r = ratio.stopGradient();
        NDArray heldLow = r.lt((float) (1 - settings.epsilon())).logicalAnd(a.lt(0).broadcast(r.getShape()));
        NDArray heldHigh = r.gt((float) (1 + settings.epsilonHigh())).logicalAnd(a.gt(0).broadcast(r.getShape()));
        double clippedTokens = heldLow.logicalOr(heldHigh).toType(mask.getDataType(), false).mul(mask).sum().getFloat();
        double klSum = kl == null ? 0 : kl.stopGradient().mul(mask).sum().getFloat();
        double ratioSum = r.mul(mask).sum().getFloat();
        return new Terms(loss, clippedTokens, klSum, ratioSum, tokens);
    }
}
