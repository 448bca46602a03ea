package dev.agentswarm.orchestrator.swarm;

import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Trajectory;
import java.util.List;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;

/**
 * What one orchestrator of a swarm came back with: its answer (null when it ended without one), how
 * its own episode ended, every sub-agent it ran with their answers and trajectories, the sub-agents
 * whose answers are missing, what budget ran out (or null), the swarm's metrics, and — for the root —
 * the PARL reward of its episode. Local only: nested orchestrators are children on their parent's node.
 */
public record SwarmResult(String agent, String answer, StopReason stopReason, String error, Trajectory orchestrator,
                          List<SubAgent> subAgents, List<String> missing, String budgetExhausted, Metrics metrics,
                          RewardBreakdown reward) implements NoSerializationVerificationNeeded {

    public SwarmResult {
        subAgents = List.copyOf(subAgents);
        missing = List.copyOf(missing);
    }

    /**
     * One sub-agent: its path in the tree, the round that spawned it, its sub-task, how it ended, its
     * answer or why not, attempts, steps and tokens over them, each attempt's trajectory, and, for a
     * nested orchestrator, its own result.
     */
    public record SubAgent(String agent, int round, SubTask task, RoundState.State state, String answer, String detail,
                           int attempts, long steps, long tokens, List<Trajectory> trajectories, SwarmResult nested) {
        public SubAgent {
            trajectories = List.copyOf(trajectories);
        }
    }

    /**
     * Critical steps (PARL's latency), total steps and their ratio; wall time against the serial sum of
     * every episode's wall time; sub-agents spawned, policy turns and generated tokens of the subtree.
     */
    public record Metrics(long criticalSteps, long totalSteps, double parallelism, long wallNanos, long serialNanos,
                          int subAgents, long turns, long tokens, int rounds) {}

    /**
     * A result for which nothing ran: a journal that was refused, or a finished swarm answering from its
     * journal ({@code answer} and counts from there). Its orchestrator trajectory is empty, named by
     * {@code episodeId} of run {@code runId} on task {@code taskId}.
     */
    public static SwarmResult withoutRun(String agent, String episodeId, String runId, String taskId, String answer,
                                         StopReason stopReason, String error, String budgetExhausted, Metrics metrics) {
        return new SwarmResult(agent, answer, stopReason, error, Trajectory.notRun(episodeId, runId, taskId, stopReason, error),
                List.of(), List.of(), budgetExhausted, metrics, null);
    }

    /** Whether the orchestrator answered. */
    public boolean answered() {
        return answer != null;
    }

    public SwarmResult withReward(RewardBreakdown r) {
        return new SwarmResult(agent, answer, stopReason, error, orchestrator, subAgents, missing, budgetExhausted, metrics, r);
    }
}
