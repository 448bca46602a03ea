package dev.agentswarm.core.environment;

import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.Trajectory;

/**
 * The per-episode side of a task: the state its tools act on (a fresh database, the question's own
 * documents) and the scoring of the finished episode, which may read that state (the table an agent
 * updated). Opened on the node where the episode runs when it starts, scored once when it ends,
 * then closed.
 */
public interface TaskEnvironment extends AutoCloseable {

    /** Scores a finished episode; the breakdown keeps every component. */
    RewardBreakdown score(Trajectory trajectory);

    /** Releases the episode's state; never throws. */
    @Override
    void close();
}
