package dev.agentswarm.core.environment;

import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.Trajectory;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The per-episode side of a task: the state its tools act on (a fresh database, the question's own
 * documents) and the scoring of the finished episode, which may read that state (the table an agent
 * updated). Opened on the node where the episode runs when it starts, scored once when it ends,
 * then closed.
 */
public interface TaskEnvironment extends AutoCloseable {

    /** Scores a finished episode; the breakdown keeps every component. */
    RewardBreakdown score(Trajectory trajectory);

    /**
     * The same, without holding the caller's thread: environments whose scoring waits (hidden tests
     * run in a sandbox) override it, and an actor pipes the result to itself.
     */
    default CompletionStage<RewardBreakdown> scoreAsync(Trajectory trajectory) {
        return CompletableFuture.completedFuture(score(trajectory));
    }

    /** Releases the episode's state; never throws. */
    @Override
    void close();
}
