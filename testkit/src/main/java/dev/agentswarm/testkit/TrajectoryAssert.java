package dev.agentswarm.testkit;

import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.ToolStatus;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Fluent assertions on a trajectory, failing with {@link AssertionError}s that print the
 * trajectory's turns, so a failing agent test shows what the agent actually did.
 */
public final class TrajectoryAssert {

    private final Trajectory t;

    private TrajectoryAssert(Trajectory t) {
        this.t = Objects.requireNonNull(t, "trajectory is null");
    }

    public static TrajectoryAssert assertThat(Trajectory t) {
        return new TrajectoryAssert(t);
    }

    public TrajectoryAssert stoppedBecause(StopReason reason) {
        check(t.stopReason() == reason, "expected stop reason " + reason + " but was " + t.stopReason()
                + (t.error() == null ? "" : " (" + t.error() + ")"));
        return this;
    }

    public TrajectoryAssert hasFinalAnswer(String answer) {
        check(answer.equals(t.finalAnswer()), "expected final answer '" + answer + "' but was '" + t.finalAnswer() + "'");
        return this;
    }

    public TrajectoryAssert hasPolicyTurns(int n) {
        check(t.stats().turns() == n, "expected " + n + " policy turns but was " + t.stats().turns());
        return this;
    }

    public TrajectoryAssert hasToolCalls(int n) {
        check(t.stats().toolCalls() == n, "expected " + n + " tool calls but was " + t.stats().toolCalls());
        return this;
    }

    public TrajectoryAssert hasToolSuccesses(int n) {
        check(t.stats().toolSuccesses() == n, "expected " + n + " successful tool calls but was " + t.stats().toolSuccesses());
        return this;
    }

    public TrajectoryAssert hasFormatErrors(int n) {
        check(t.stats().formatErrors() == n, "expected " + n + " format errors but was " + t.stats().formatErrors());
        return this;
    }

    /** Some tool result of the episode has this status and its text contains {@code text}. */
    public TrajectoryAssert hasToolResult(ToolStatus status, String text) {
        check(results().stream().anyMatch(r -> r.status() == status && r.content().contains(text)),
                "expected a tool result " + status + " containing '" + text + "'");
        return this;
    }

    /** Some observation turn fed back to the policy contains {@code text}. */
    public TrajectoryAssert observed(String text) {
        check(t.turns().stream().anyMatch(turn -> !turn.isAssistant() && turn.text().contains(text)),
                "expected an observation containing '" + text + "'");
        return this;
    }

    public TrajectoryAssert calledTool(String name, int times) {
        long n = t.turns().stream().flatMap(turn -> turn.toolCalls().stream()).map(ToolCall::name).filter(name::equals).count();
        check(n == times, "expected " + times + " calls of '" + name + "' but saw " + n);
        return this;
    }

    public TrajectoryAssert everyTurn(Predicate<Turn> p, String what) {
        for (Turn turn : t.turns()) check(p.test(turn), "turn " + turn.index() + " is not " + what);
        return this;
    }

    public Trajectory trajectory() {
        return t;
    }

    private List<ToolResult> results() {
        return t.turns().stream().flatMap(turn -> turn.toolResults().stream()).toList();
    }

    private void check(boolean ok, String message) {
        if (!ok) throw new AssertionError(message + "\n" + Trajectories.render(t));
    }
}
