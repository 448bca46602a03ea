package dev.agentswarm.environments;

import com.typesafe.config.Config;

/**
 * Realistic imperfection an oracle may add to its demonstrations, so that RL has something to
 * improve on after SFT: a wasted tool call, chatty filler in the thoughts, a wrong first call that is
 * corrected after its result. Each is a probability per episode, decided from the task id (the same
 * task always gets the same noise).
 */
public record Noise(double wastedCall, double filler, double wrongFirstCall) {

    public static final Noise NONE = new Noise(0, 0, 0);

    /** The chatty opening the oracles put before their thoughts under {@code filler} noise. */
    public static final String FILLER = "Okay, let me think about this carefully and make sure I get every step right. ";

    public Noise {
        check("wasted-call", wastedCall);
        check("filler", filler);
        check("wrong-first-call", wrongFirstCall);
    }

    public static Noise fromConfig(Config c) {
        return new Noise(c.getDouble("wasted-call"), c.getDouble("filler"), c.getDouble("wrong-first-call"));
    }

    /** Whether the noise of kind {@code salt} applies to the task: a stable draw from its id. */
    public boolean applies(double probability, String taskId, String salt) {
        if (probability <= 0) return false;
        long h = 1125899906842597L;
        for (char ch : (taskId + '/' + salt).toCharArray()) h = 31 * h + ch;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        return (h >>> 11) * 0x1.0p-53 < probability;
    }

    private static void check(String name, double p) {
        if (!(p >= 0 && p <= 1)) throw new IllegalArgumentException("noise." + name + " must be in [0, 1], got " + p);
    }
}
