package dev.agentswarm.workers;

import dev.agentswarm.core.concurrent.Stages;
import dev.agentswarm.core.format.ParsedCompletion;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.EpisodeHistory;
import dev.agentswarm.core.protocol.SwarmProtocol;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolCallSummary;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.ToolStatus;
import dev.agentswarm.core.tool.ToolExecutor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

/**
 * An episode's side of the swarm running it: what the swarm hears of each turn, so live views show
 * it and a durable swarm can resume the episode after a crash without running a call twice, and the
 * two questions the episode asks it (journal this turn first; run these sub-agents). Which turn is
 * told what, and when, is a rule of its own, kept out of the actor's handlers. Outside a swarm
 * ({@code swarm} null) it tells nothing.
 */
final class SwarmLink {

    private final ActorRef<SwarmProtocol.Command> swarm;
    private final String episodeId;
    private final ToolExecutor executor;
    /** The completion of the turn whose tool calls are running, when its swarm must hear their results. */
    private Completion stepOpen;
    /** Results of the open step already told to the swarm. */
    private int resultsTold;

    SwarmLink(ActorRef<SwarmProtocol.Command> swarm, String episodeId, ToolExecutor executor) {
        this.swarm = swarm;
        this.episodeId = episodeId;
        this.executor = executor;
    }

    /** Whether the swarm must hear of {@code call} before it runs and as soon as it ends: a call that must not run twice. */
    boolean guarded(ToolCall call) {
        return swarm != null && !SwarmProtocol.SPAWN_TOOL.equals(call.name()) && !executor.idempotent(call);
    }

    /** Whether {@code call} is a round of sub-agents, which the swarm runs. */
    boolean spawns(ToolCall call) {
        return swarm != null && SwarmProtocol.SPAWN_TOOL.equals(call.name());
    }

    /** Whether the turn whose calls are running has results the swarm must hear. */
    boolean stepOpen() {
        return stepOpen != null;
    }

    /** Inside a swarm, every policy turn is reported: live views show it, and budgets count it while the episode runs. */
    void progress(int turn, List<ToolCall> calls, String finishAnswer, ParsedCompletion parsed, int completionTokens) {
        if (swarm == null) return;
        String action;
        if (finishAnswer != null) action = "answer: " + finishAnswer;
        else if (!calls.isEmpty()) action = ToolCallSummary.of(calls, 160);
        else if (parsed.hasFinalAnswer() && !parsed.hasErrors()) action = "answer: " + parsed.finalAnswer();
        else action = "format error";
        if (action.length() > 160) action = action.substring(0, 159) + "…";
        swarm.tell(new SwarmProtocol.EpisodeProgress(episodeId, turn, action, completionTokens));
    }

    /**
     * Tells the swarm what the policy said on {@code turn}, so a durable swarm can resume the episode after
     * it: with its results once they are in ({@link #turnDone}), or at once when there is nothing to run. A
     * recorded turn being replayed ({@code replaying} not null) is not told again, unless its calls were in
     * flight at the crash. Returns whether the turn's calls must wait until the swarm's journal holds its
     * completion ({@link #recordBeforeCalls}).
     */
    boolean recordStep(int turn, Completion c, List<ToolCall> calls, boolean toolsToRun, EpisodeHistory.Step replaying) {
        stepOpen = null;
        if (swarm == null) return false;
        // A call that must not run twice waits for the completion to be journaled (recordBeforeCalls), and each
        // of its results is told as it comes. Otherwise the completion alone is worth a journal event only
        // before a call that may run long (a round of sub-agents): after a crash there, the call is asked
        // again, not the policy. Other turns are recorded once, when their results are in; one cut short
        // by a crash is asked again whole (its calls are idempotent).
        boolean recordFirst = replaying == null && toolsToRun && calls.stream().anyMatch(this::guarded);
        boolean longCall = calls.stream().anyMatch(call -> SwarmProtocol.SPAWN_TOOL.equals(call.name()));
        if (replaying == null && !recordFirst && (!toolsToRun || longCall)) {
            swarm.tell(new SwarmProtocol.StepRecorded(episodeId, turn, new EpisodeHistory.Step(c, toolsToRun ? null : List.of())));
        }
        if (toolsToRun && (replaying == null || !recordsEvery(replaying, calls))) stepOpen = c;
        return recordFirst;
    }

    private static boolean recordsEvery(EpisodeHistory.Step step, List<ToolCall> calls) {
        for (ToolCall call : calls) if (step.result(call.id()) == null) return false;
        return true;
    }

    /**
     * Asks the swarm to journal {@code turn}'s completion before its calls start: after a crash the journal
     * then shows its calls may have run, so the resumed episode does not run them again.
     */
    CompletableFuture<SwarmProtocol.Recorded> recordBeforeCalls(int turn, Completion c, Duration timeout, Scheduler scheduler) {
        return Stages.direct(AskPattern.ask(swarm,
                replyTo -> new SwarmProtocol.RecordBeforeCalls(episodeId, turn, new EpisodeHistory.Step(c, null), replyTo),
                timeout, scheduler));
    }

    /** The open step's calls start: none of their results has been told yet. */
    void callsStarted() {
        resultsTold = 0;
    }

    /** A guarded call of {@code turn} ended: the results of {@code calls} that have ended, none told twice. */
    void callEnded(int turn, List<CompletableFuture<ToolResult>> calls) {
        if (stepOpen == null) return;
        List<ToolResult> done = new ArrayList<>();
        for (CompletableFuture<ToolResult> f : calls) {
            if (f.isDone() && !f.isCompletedExceptionally()) done.add(f.join());
        }
        // All of them: the turn's record with every result follows at once (turnDone).
        if (done.size() <= resultsTold || done.size() == calls.size()) return;
        resultsTold = done.size();
        swarm.tell(new SwarmProtocol.StepRecorded(episodeId, turn, new EpisodeHistory.Step(stepOpen, done)));
    }

    /** Every call of {@code turn} has its result: the open step is recorded whole. */
    void turnDone(int turn, List<ToolResult> results) {
        if (stepOpen == null) return;
        swarm.tell(new SwarmProtocol.StepRecorded(episodeId, turn, new EpisodeHistory.Step(stepOpen, results)));
        stepOpen = null;
    }

    /**
     * A {@code spawn_subagents} call goes to the swarm, which may take as long as the episode has left
     * ({@code timeout}): its sub-agents run meanwhile.
     */
    CompletableFuture<ToolResult> spawn(int turn, ToolCall call, Duration timeout, long started, Scheduler scheduler) {
        CompletableFuture<SwarmProtocol.SpawnOutcome> outcome = Stages.direct(AskPattern.ask(swarm,
                replyTo -> new SwarmProtocol.SpawnSubAgents(episodeId, turn, call.id(), call.arguments(), replyTo),
                timeout, scheduler));
        return outcome.handle((o, failure) -> o != null
                ? new ToolResult(call.id(), call.name(), o.observation(), o.ok() ? ToolStatus.OK : ToolStatus.ERROR, false,
                        System.nanoTime() - started)
                : new ToolResult(call.id(), call.name(), "spawn_subagents failed: "
                        + EpisodeActor.describe(EpisodeActor.unwrap(failure)), ToolStatus.ERROR, false, System.nanoTime() - started));
    }
}
