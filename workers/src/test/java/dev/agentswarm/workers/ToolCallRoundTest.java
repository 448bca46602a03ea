package dev.agentswarm.workers;

import static dev.agentswarm.workers.SwarmLinkTest.call;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.EpisodeHistory;
import dev.agentswarm.core.protocol.SwarmProtocol;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.ToolStatus;
import dev.agentswarm.core.tool.CalculatorTool;
import dev.agentswarm.core.tool.ToolExecutor;
import dev.agentswarm.core.tool.ToolRegistry;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** Which of a turn's calls run, and which give a result without running, is what keeps a resumed episode from repeating an effect. */
class ToolCallRoundTest {

    private static final ActorTestKit kit = ActorTestKit.create("tool-call-round");

    private final SwarmLinkTest.Send send = new SwarmLinkTest.Send();
    private final ToolExecutor executor = new ToolExecutor(ToolRegistry.of(send, new CalculatorTool()), 4000, 5000);
    private final long farOff = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);

    @AfterAll
    static void stop() {
        kit.shutdownTestKit();
    }

    private ToolCallRound round(SwarmLink swarm) {
        return new ToolCallRound("ep-1", executor, 5000, swarm, farOff, kit.scheduler());
    }

    private static List<ToolResult> results(List<CompletableFuture<ToolResult>> started) {
        return ToolCallRound.all(started).toCompletableFuture().join();
    }

    @Test
    void aResumedTurnGivesBackWhatRanBeforeTheCrashAndNeverRunsAnEffectTwice() {
        ToolCallRound round = round(new SwarmLink(null, "ep-1", executor));
        ToolResult before = new ToolResult("c1", "send", "sent before the crash", ToolStatus.OK, false, 0);
        EpisodeHistory.Step step = new EpisodeHistory.Step(Completion.ofText("", 0, 0), List.of(before));
        List<ToolCall> calls = List.of(call("c1", "send"), call("c2", "send"), call("c3", "calculator"));
        List<ToolResult> results = results(round.start(2, calls, step, null, () -> {}));
        assertSame(before, results.get(0));
        assertEquals(ToolStatus.INTERRUPTED, results.get(1).status(), "in flight at the crash: the model is told, not the tool rerun");
        assertEquals(ToolStatus.OK, results.get(2).status(), "an idempotent call simply runs again");
        assertEquals(0, send.runs);
    }

    @Test
    void aCallThatMustNotRunTwiceIsRefusedWhenTheSwarmCouldNotJournalItsTurn() {
        SwarmLink swarm = new SwarmLink(kit.createTestProbe(SwarmProtocol.Command.class).ref(), "ep-1", executor);
        List<ToolCall> calls = List.of(call("c1", "send"), call("c2", "calculator"));
        List<ToolResult> results = results(round(swarm).start(1, calls, null, "journal unavailable", () -> {}));
        assertEquals(ToolStatus.ERROR, results.get(0).status());
        assertEquals("tool 'send' was not run: the swarm could not journal the turn before it (journal unavailable)",
                results.get(0).content());
        assertEquals(ToolStatus.OK, results.get(1).status());
        assertEquals(0, send.runs);
    }

    @Test
    void aGuardedCallRunsAndItsEndIsHeardWhileItsStepIsOpen() {
        SwarmLink swarm = new SwarmLink(kit.createTestProbe(SwarmProtocol.Command.class).ref(), "ep-1", executor);
        List<ToolCall> calls = List.of(call("c1", "send"), call("c2", "calculator"));
        assertTrue(swarm.recordStep(1, Completion.ofText("", 0, 0), calls, true, null));
        AtomicInteger ended = new AtomicInteger();
        List<ToolResult> results = results(round(swarm).start(1, calls, null, null, ended::incrementAndGet));
        assertEquals(List.of(ToolStatus.OK, ToolStatus.OK), results.stream().map(ToolResult::status).toList());
        assertEquals(1, send.runs);
        assertEquals(1, ended.get(), "only the call that must not run twice is told as it ends");
    }

    @Test
    void aToolThatIsDownEndsTheRoundAndAFailedRoundFailsEachCall() {
        ToolResult ok = new ToolResult("c1", "calculator", "4", ToolStatus.OK, false, 0);
        ToolResult down = new ToolResult("c2", "python", "sandbox pool gone", ToolStatus.SANDBOX_UNAVAILABLE, false, 0);
        assertNull(ToolCallRound.down(List.of(ok)));
        assertSame(down, ToolCallRound.down(List.of(ok, down)));

        List<ToolResult> failed = ToolCallRound.failed(List.of(call("c1", "send"), call("c2", "calculator")),
                new CompletionException(new IllegalStateException("executor closed")));
        assertEquals(2, failed.size());
        assertEquals("tool call failed: executor closed", failed.get(1).content());
        assertEquals(ToolStatus.ERROR, failed.get(0).status());
    }
}
