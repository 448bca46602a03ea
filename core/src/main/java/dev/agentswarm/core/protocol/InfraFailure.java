package dev.agentswarm.core.protocol;

import java.util.Locale;

/**
 * Why an episode failed for a reason that is not the policy's: its trajectory says nothing about
 * how good the policy's answer was, so a learner must never read it as a reward-zero sample (it
 * would give the earlier turns a negative advantage and inflate the group mates'). A training run
 * runs such an episode again under a new attempt, and drops its group when it still fails.
 */
public enum InfraFailure {
    /** The policy server was unreachable, timed out or had its queue full, after the episode's retries. */
    POLICY_UNAVAILABLE,
    /** The model playing the task's simulated user failed to answer. */
    SIMULATED_USER_FAILED,
    /** The episode's actor crashed, or its answer could not be sent back. */
    CRASHED,
    /** The sandbox could not run the policy's code on its node. */
    SANDBOX_UNAVAILABLE,
    /** An MCP server the episode's tools live on was down (crashed, hung, restarting). */
    MCP_SERVER_DOWN,
    /** The task's scorer failed or did not answer in time: the episode has no reward. */
    SCORER_FAILED,
    /** The episode's node was lost before it answered. */
    NODE_LOST;

    /** The cause as a metric label or JSON key: {@code policy_unavailable}, … */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The cause behind a tool call that ended with {@code status}, or null when the tool's end was the model's to read. */
    public static InfraFailure ofTool(ToolStatus status) {
        return switch (status) {
            case SANDBOX_UNAVAILABLE -> SANDBOX_UNAVAILABLE;
            case SERVER_DOWN -> MCP_SERVER_DOWN;
            default -> null;
        };
    }
}
