package dev.agentswarm.workers;

import dev.agentswarm.core.protocol.EpisodeHistory;
import dev.agentswarm.core.protocol.InfraFailure;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.ToolStatus;
import dev.agentswarm.core.tool.ToolContext;
import dev.agentswarm.core.tool.ToolExecutor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.Scheduler;

/**
 * Starts a turn's tool calls, each the way a resumable episode allows: a call done before a crash gives
 * its recorded result and never runs twice; one in flight at the crash that must not run twice is
 * reported interrupted, for the model to check; one that must not run twice, in a turn the swarm could
 * not journal first, is refused; a round of sub-agents goes to the swarm; the rest run on the executor.
 * Which of these a call gets is the rule that keeps a resumed episode from repeating a side effect, so it
 * lives here, tested without an actor; the {@link EpisodeActor} only waits for the results.
 */
final class ToolCallRound {

    private final String episodeId;
    private final ToolExecutor executor;
    private final long toolTimeoutMillis;
    private final SwarmLink swarm;
    private final long deadlineAtNanos;
    private final Scheduler scheduler;

    ToolCallRound(String episodeId, ToolExecutor executor, long toolTimeoutMillis, SwarmLink swarm, long deadlineAtNanos,
                  Scheduler scheduler) {
        this.episodeId = episodeId;
        this.executor = executor;
        this.toolTimeoutMillis = toolTimeoutMillis;
        this.swarm = swarm;
        this.deadlineAtNanos = deadlineAtNanos;
        this.scheduler = scheduler;
    }

    /**
     * Starts {@code calls} of {@code turn}: a result each, in order.
     *
     * @param replaying   the turn's step recorded before a crash, or null when the turn is live
     * @param notRecorded why the swarm could not journal the turn before its calls, or null when it did
     * @param callEnded   run when a call the swarm must hear of as it ends has ended, while its step is open
     */
    List<CompletableFuture<ToolResult>> start(int turn, List<ToolCall> calls, EpisodeHistory.Step replaying, String notRecorded,
                                              Runnable callEnded) {
        List<CompletableFuture<ToolResult>> futures = new ArrayList<>(calls.size());
        for (int i = 0; i < calls.size(); i++) {
            ToolCall call = calls.get(i);
            ToolResult recorded = replaying == null ? null : replaying.result(call.id());
            if (recorded != null) { // done before the crash: never run twice
                futures.add(CompletableFuture.completedFuture(recorded));
                continue;
            }
            if (swarm.spawns(call)) {
                futures.add(askSwarm(turn, call));
                continue;
            }
            if (replaying != null && !executor.idempotent(call)) {
                // In flight at the crash, maybe done, maybe not: the model is told, and decides whether to check or retry.
                futures.add(CompletableFuture.completedFuture(ToolExecutor.interrupted(call)));
                continue;
            }
            if (notRecorded != null && swarm.guarded(call)) {
                futures.add(CompletableFuture.completedFuture(new ToolResult(call.id(), call.name(), "tool '" + call.name()
                        + "' was not run: the swarm could not journal the turn before it (" + notRecorded + ")", ToolStatus.ERROR,
                        false, 0)));
                continue;
            }
            ToolContext ctx = new ToolContext(episodeId, turn, i, call.id(), toolTimeoutMillis);
            CompletableFuture<ToolResult> result = executor.execute(call, ctx).toCompletableFuture();
            if (swarm.stepOpen() && swarm.guarded(call)) result.whenComplete((r, e) -> callEnded.run());
            futures.add(result);
        }
        return futures;
    }

    /** A {@code spawn_subagents} call may take as long as the episode has left: its sub-agents run meanwhile. */
    private CompletableFuture<ToolResult> askSwarm(int turn, ToolCall call) {
        long started = System.nanoTime();
        long leftMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineAtNanos - started));
        return swarm.spawn(turn, call, Duration.ofMillis(leftMillis), started, scheduler);
    }

    /** Every result of a round, in the calls' order, once the last is in. */
    static CompletionStage<List<ToolResult>> all(List<CompletableFuture<ToolResult>> futures) {
        return futures.size() == 1
                ? futures.get(0).thenApply(List::of)
                : CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
                        .thenApply(v -> futures.stream().map(CompletableFuture::join).toList());
    }

    /** The first result of a tool that is down (its sandbox or MCP server), or null: the episode cannot go on without it. */
    static ToolResult down(List<ToolResult> results) {
        for (ToolResult r : results) {
            if (InfraFailure.ofTool(r.status()) != null) return r;
        }
        return null;
    }

    /** What the policy reads when waiting for the round itself failed: each call failed, for that reason. */
    static List<ToolResult> failed(List<ToolCall> calls, Throwable failure) {
        String why = EpisodeActor.describe(EpisodeActor.unwrap(failure));
        return calls.stream().map(c -> new ToolResult(c.id(), c.name(), "tool call failed: " + why,
                ToolStatus.ERROR, false, 0)).toList();
    }
}
