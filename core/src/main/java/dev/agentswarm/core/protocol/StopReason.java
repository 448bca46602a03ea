package dev.agentswarm.core.protocol;

/** Why an episode ended. */
public enum StopReason {
    /** The policy gave a final answer (plain text, {@code Final Answer:} or the {@code finish} tool). */
    FINAL_ANSWER,
    /** The simulated user the episode conversed with closed the conversation (τ²-bench's user_stop). */
    USER_STOP,
    /** {@code max-turns} policy turns were used without a final answer. */
    MAX_TURNS,
    /** The episode's token budget ran out. */
    TOKEN_BUDGET,
    /** The task's own rules ended it (τ²-bench's limits: 200 steps, or 10 failed tool calls); {@code error} says which. */
    TASK_LIMIT,
    /** The episode's wall-clock deadline passed. */
    DEADLINE,
    /**
     * The policy itself failed after its retries: unreachable, timed out or its queue full (then
     * {@code Trajectory.infraFailure()} says so), or a response it cannot use.
     */
    POLICY_ERROR,
    /** The episode was cancelled by its requester (budget of a parent, straggler of a join). */
    CANCELLED,
    /** The episode's actor crashed; the worker reports it so no request goes unanswered. */
    CRASHED,
    /** The request could not be run as given (unknown tool or format); {@code error} says what to fix. */
    INVALID_REQUEST,
    /** A tool's own infrastructure failed (its sandbox could not start, its MCP server is down); {@code error} says which. */
    TOOL_UNAVAILABLE;

    /** The episode came to its end as the task meant: an answer, or a conversation its user closed. */
    public boolean completed() {
        return this == FINAL_ANSWER || this == USER_STOP;
    }
}
