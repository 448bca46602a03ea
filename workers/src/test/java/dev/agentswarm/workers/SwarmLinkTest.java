package dev.agentswarm.workers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.format.ParsedCompletion;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.EpisodeHistory;
import dev.agentswarm.core.protocol.SwarmProtocol;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.core.protocol.ToolStatus;
import dev.agentswarm.core.tool.CalculatorTool;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.core.tool.ToolContext;
import dev.agentswarm.core.tool.ToolExecutor;
import dev.agentswarm.core.tool.ToolRegistry;
import dev.agentswarm.core.tool.ToolSpecs;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** What a durable swarm hears of an episode's turns decides whether a resumed episode runs a call twice. */
class SwarmLinkTest {

    private static final ActorTestKit kit = ActorTestKit.create("swarm-link");
    private static final Duration QUIET = Duration.ofMillis(100);

    /** A tool with an effect: it must not run twice. */
    static final class Send implements Tool {
        int runs;

        @Override
        public ToolSpec spec() {
            return ToolSpecs.oneString("send", "Sends a message.", "to", "Who to send it to.");
        }

        @Override
        public CompletionStage<String> invoke(JsonNode arguments, ToolContext context) {
            runs++;
            return CompletableFuture.completedFuture("sent");
        }
    }

    static ToolCall call(String id, String name) {
        return new ToolCall(id, name, "calculator".equals(name) ? Json.MAPPER.createObjectNode().put("expression", "2+2")
                : Json.MAPPER.createObjectNode().put("to", "bob"));
    }

    private final ToolExecutor executor = new ToolExecutor(ToolRegistry.of(new Send(), new CalculatorTool()), 4000, 5000);
    private final Completion said = Completion.ofText("calling", 10, 2);

    @AfterAll
    static void stop() {
        kit.shutdownTestKit();
    }

    @Test
    void outsideASwarmNothingWaitsForAJournal() {
        SwarmLink none = new SwarmLink(null, "ep-1", executor);
        assertFalse(none.guarded(call("c1", "send")));
        assertFalse(none.spawns(call("c1", SwarmProtocol.SPAWN_TOOL)));
        assertFalse(none.recordStep(1, said, List.of(call("c1", "send")), true, null));
        assertFalse(none.stepOpen());
    }

    @Test
    void aTurnWithNothingToRunIsRecordedAtOnceAndItsProgressIsTold() {
        TestProbe<SwarmProtocol.Command> swarm = kit.createTestProbe(SwarmProtocol.Command.class);
        SwarmLink link = new SwarmLink(swarm.ref(), "ep-1", executor);
        link.progress(1, List.of(), "x".repeat(200), new ParsedCompletion(null, List.of(), null, List.of(), null), 2);
        SwarmProtocol.EpisodeProgress progress = swarm.expectMessageClass(SwarmProtocol.EpisodeProgress.class);
        assertEquals(160, progress.lastAction().length(), "cut for a live view");
        assertTrue(progress.lastAction().startsWith("answer: x") && progress.lastAction().endsWith("…"));
        assertFalse(link.recordStep(1, said, List.of(), false, null));
        SwarmProtocol.StepRecorded step = swarm.expectMessageClass(SwarmProtocol.StepRecorded.class);
        assertEquals(1, step.turn());
        assertEquals(new EpisodeHistory.Step(said, List.of()), step.record());
        assertFalse(link.stepOpen());
    }

    @Test
    void aCallThatMustNotRunTwiceWaitsForTheJournalAndItsResultsAreToldAsTheyEnd() {
        TestProbe<SwarmProtocol.Command> swarm = kit.createTestProbe(SwarmProtocol.Command.class);
        SwarmLink link = new SwarmLink(swarm.ref(), "ep-1", executor);
        List<ToolCall> calls = List.of(call("c1", "send"), call("c2", "send"));
        assertTrue(link.guarded(calls.get(0)));
        assertFalse(link.guarded(call("c3", "calculator")), "an idempotent call may run again after a crash");
        assertTrue(link.recordStep(2, said, calls, true, null), "the turn is journaled before its calls start");
        swarm.expectNoMessage(QUIET);
        assertTrue(link.stepOpen());

        link.callsStarted();
        ToolResult first = new ToolResult("c1", "send", "sent", ToolStatus.OK, false, 0);
        ToolResult second = new ToolResult("c2", "send", "sent", ToolStatus.OK, false, 0);
        CompletableFuture<ToolResult> pending = new CompletableFuture<>();
        List<CompletableFuture<ToolResult>> running = List.of(CompletableFuture.completedFuture(first), pending);
        link.callEnded(2, running);
        assertEquals(List.of(first), swarm.expectMessageClass(SwarmProtocol.StepRecorded.class).record().results());
        link.callEnded(2, running);
        swarm.expectNoMessage(QUIET);
        pending.complete(second);
        link.callEnded(2, running);
        swarm.expectNoMessage(QUIET); // every result is in: the whole turn follows

        link.turnDone(2, List.of(first, second));
        SwarmProtocol.StepRecorded whole = swarm.expectMessageClass(SwarmProtocol.StepRecorded.class);
        assertEquals(new EpisodeHistory.Step(said, List.of(first, second)), whole.record());
        assertFalse(link.stepOpen());
    }

    @Test
    void aReplayedTurnIsToldAgainOnlyWhenACallWasInFlightAtTheCrash() {
        TestProbe<SwarmProtocol.Command> swarm = kit.createTestProbe(SwarmProtocol.Command.class);
        SwarmLink link = new SwarmLink(swarm.ref(), "ep-1", executor);
        List<ToolCall> calls = List.of(call("c1", "send"), call("c2", "send"));
        ToolResult first = new ToolResult("c1", "send", "sent", ToolStatus.OK, false, 0);
        ToolResult second = new ToolResult("c2", "send", "sent", ToolStatus.OK, false, 0);
        assertFalse(link.recordStep(1, said, calls, true, new EpisodeHistory.Step(said, List.of(first, second))));
        assertFalse(link.stepOpen(), "every result is in the journal already");
        assertFalse(link.recordStep(1, said, calls, true, new EpisodeHistory.Step(said, List.of(first))));
        assertTrue(link.stepOpen(), "the second call's result is not: the swarm must hear it");
        swarm.expectNoMessage(QUIET);
    }
}
