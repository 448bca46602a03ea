package dev.agentswarm.orchestrator.swarm;

import com.typesafe.config.Config;
import java.time.Duration;

/**
 * What an orchestrator may spend, handed down the tree: sub-agents spawned, sub-agents at once,
 * policy turns and generated tokens in total, and wall-clock time (sub-agents stop
 * {@code finishReserve} before the deadline so the orchestrator can still answer). A nested
 * orchestrator leases {@link #lease its share} of what its parent has left.
 */
public record SwarmBudget(int maxSubAgents, int maxParallel, long maxTurns, long maxTokens, Duration deadline,
                          Duration finishReserve) {

    public SwarmBudget {
        if (maxSubAgents < 0) throw new IllegalArgumentException("max-subagents must be >= 0, got " + maxSubAgents);
        if (maxParallel < 1) throw new IllegalArgumentException("max-parallel must be >= 1, got " + maxParallel);
        if (maxTurns < 1) throw new IllegalArgumentException("max-turns must be >= 1, got " + maxTurns);
        if (maxTokens < 1) throw new IllegalArgumentException("max-tokens must be >= 1, got " + maxTokens);
        if (deadline.isNegative() || deadline.isZero()) throw new IllegalArgumentException("deadline must be > 0, got " + deadline);
        if (finishReserve.isNegative() || finishReserve.compareTo(deadline) >= 0) {
            throw new IllegalArgumentException("finish-reserve must be >= 0 and below the deadline (" + deadline + "), got " + finishReserve);
        }
    }

    /** Reads an {@code agentswarm.swarm}-shaped block; a reserve over a quarter of the deadline is cut to a quarter. */
    public static SwarmBudget fromConfig(Config c) {
        Duration deadline = c.getDuration("deadline");
        Duration reserve = c.getDuration("finish-reserve");
        if (reserve.compareTo(deadline.dividedBy(4)) > 0) reserve = deadline.dividedBy(4);
        return new SwarmBudget(c.getInt("max-subagents"), c.getInt("max-parallel"), c.getLong("max-turns"),
                c.getLong("max-tokens"), deadline, reserve);
    }

    /**
     * A nested orchestrator's lease: what the parent has left of each budget, less the sub-agents the
     * parent's round has yet to start; the time left, with the same share held back as reserve.
     */
    public SwarmBudget lease(int subAgentsLeft, long turnsLeft, long tokensLeft, Duration timeLeft) {
        Duration time = timeLeft.isNegative() || timeLeft.isZero() ? Duration.ofMillis(1) : timeLeft;
        Duration reserve = finishReserve.compareTo(time.dividedBy(4)) > 0 ? time.dividedBy(4) : finishReserve;
        return new SwarmBudget(Math.max(0, subAgentsLeft), maxParallel, Math.max(1, turnsLeft), Math.max(1, tokensLeft), time, reserve);
    }
}
