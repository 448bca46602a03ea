package dev.agentswarm.core.environment;

import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.tool.Tool;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The per-episode side of a task: the state its tools act on (a fresh database, the question's own
 * documents) and the scoring of the finished episode, which may read that state (the table an agent
 * updated). Opened on the node where the episode runs when it starts, scored once when it ends,
 * then closed.
 */
public interface TaskEnvironment extends AutoCloseable {

    /**
     * Tools this task alone offers, besides the ones its spec names from the node (a function-calling
     * benchmark gives each question its own functions). Their names must not be the node's.
     */
    default List<Tool> tools() {
        return List.of();
    }

    /**
     * The task's own system instructions, which come first in the episode's system message (before the
     * spec's prompt and the tools); null when the task has none.
     */
    default String systemPrompt() {
        return null;
    }

    /**
     * Whether the model's tool calls are its answer rather than actions to run (a single-turn
     * function-calling benchmark): the episode then ends with them as its final answer, and they are
     * not run.
     */
    default boolean callsAreTheAnswer() {
        return false;
    }

    /**
     * The simulated user this task's episode converses with, or null: with one, the agent does not see
     * the task's prompt (it is the user's brief); it greets, the partner opens, and each of the agent's
     * messages (a text without tool calls) goes to the partner instead of ending the episode, which ends
     * when the partner closes the conversation ({@code USER_STOP}).
     */
    default ConversationPartner partner() {
        return null;
    }

    /**
     * The agent asked for {@code calls} (with {@code text}, the words that came with them, possibly empty),
     * before any of them runs: an environment that keeps the conversation as a benchmark records it (τ²:
     * one agent message with its text and calls, then their answers) sees the turn whole. Must not block.
     */
    default void agentCalls(String text, List<ToolCall> calls) {}

    /**
     * Why the task's own rules end the episode now, or null to go on: asked before each policy turn (τ²'s
     * orchestrator stops a conversation at 200 steps or 10 failed tool calls). Must be cheap and not block.
     */
    default String limitReached() {
        return null;
    }

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
