package dev.agentswarm.learner.rl;

import java.util.Locale;

/**
 * GRPO's group-relative advantages: each completion's reward minus its group's mean, divided by a
 * standard deviation chosen by {@code scale-rewards} — its group's (GRPO), the whole batch's
 * (LitePPO), or none at all (Dr. GRPO, which removes the question-difficulty bias). Standard
 * deviations are unbiased (n − 1), as torch.std and TRL compute them, and get 1e-4 added so a
 * zero-variance group gives zero advantages rather than a division by zero.
 */
public final class GroupAdvantages {

    /** How advantages are scaled. */
    public enum Scale {
        GROUP, BATCH, NONE;

        public static Scale parse(String s) {
            for (Scale v : values()) if (v.name().equalsIgnoreCase(s.trim())) return v;
            throw new IllegalArgumentException("scale-rewards takes group, batch or none, got \"" + s + "\"");
        }

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    static final double EPS = 1e-4;

    private GroupAdvantages() {}

    /** Advantages shaped like {@code rewards}: one row per group, one value per completion. */
    public static double[][] compute(double[][] rewards, Scale scale) {
        double[][] out = new double[rewards.length][];
        double batchStd = scale == Scale.BATCH ? std(flatten(rewards)) : 0;
        for (int g = 0; g < rewards.length; g++) {
            double[] r = rewards[g];
            if (r.length == 0) throw new IllegalArgumentException("group " + g + " is empty");
            double mean = mean(r);
            double divisor = switch (scale) {
                case GROUP -> std(r) + EPS;
                case BATCH -> batchStd + EPS;
                case NONE -> 1.0;
            };
            out[g] = new double[r.length];
            for (int i = 0; i < r.length; i++) out[g][i] = (r[i] - mean) / divisor;
        }
        return out;
    }

    /** True when every reward of the group is the same: it teaches nothing (DAPO's dynamic sampling drops it). */
    public static boolean zeroVariance(double[] group) {
        for (double r : group) if (Math.abs(r - group[0]) > 1e-9) return false;
        return true;
    }

    static double mean(double[] xs) {
        double s = 0;
        for (double x : xs) s += x;
        return s / xs.length;
    }

    /** Unbiased standard deviation; 0 for fewer than two values. */
    static double std(double[] xs) {
        if (xs.length < 2) return 0;
        double m = mean(xs);
        double ss = 0;
        for (double x : xs) ss += (x - m) * (x - m);
        return Math.sqrt(ss / (xs.length - 1));
    }

    private static double[] flatten(double[][] rows) {
        int n = 0;
        for (double[] r : rows) n += r.length;
        double[] out = new double[n];
        int i = 0;
        for (double[] r : rows) for (double x : r) out[i++] = x;
        return out;
    }
}
