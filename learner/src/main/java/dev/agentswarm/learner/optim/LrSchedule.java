package dev.agentswarm.learner.optim;

/**
 * Linear warm-up to {@code peak}, then a half cosine down to {@code min} at {@code totalSteps}.
 * Steps count from 0 (the first optimizer step); warm-up step s uses peak·(s+1)/warmup so that the
 * first step already moves the weights. Past {@code totalSteps} the rate stays at {@code min}.
 */
public record LrSchedule(double peak, double min, int warmupSteps, int totalSteps) {

    public LrSchedule {
        if (!(peak > 0)) throw new IllegalArgumentException("lr must be > 0, got " + peak);
        if (min < 0 || min > peak) throw new IllegalArgumentException("min-lr must be in [0, lr], got " + min);
        if (warmupSteps < 0) throw new IllegalArgumentException("warmup-steps must be ≥ 0, got " + warmupSteps);
        if (totalSteps < 1) throw new IllegalArgumentException("total steps must be ≥ 1, got " + totalSteps);
    }

    public double at(long step) {
        if (step < warmupSteps) return peak * (step + 1) / warmupSteps;
        long decaySteps = Math.max(1, totalSteps - warmupSteps);
        double progress = Math.min(1.0, (double) (step - warmupSteps) / decaySteps);
        return min + 0.5 * (peak - min) * (1 + Math.cos(Math.PI * progress));
    }
}
