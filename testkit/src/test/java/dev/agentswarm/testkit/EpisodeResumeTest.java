package dev.agentswarm.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.EpisodeHistory;
import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.SwarmProtocol;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.ToolStatus;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
import dev.agentswarm.core.tool.FinishTool;
import dev.agentswarm.core.tool.ToolRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** An episode resumed after a crash: recorded steps stand in for the policy and the tools, then it goes on live. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EpisodeResumeTest {

    private final ActorTestKit kit = ActorTestKit.create("resume", EpisodeHarness.TEST_CONFIG);
    private static final Task TASK = Task.of("sum", "Add the three numbers the ledger tool gives you.");

    @AfterAll
    void stop() {
        kit.shutdownTestKit();
    }

    /** Turn n (1..3) reads entry n of a side-effecting ledger; turn 4 answers. The same turn gets the same completion. */
    private static Completion said(int turn) {
        String text = turn <= 3 ? EpisodeLoopTest.call("ledger", "{\"entry\": " + turn + "}") : "The sum is 6";
        return new Completion(text, List.of(), new int[] {turn, 7, 9}, new float[] {-0.5f, -0.25f, -0.125f}, FinishReason.STOP, 3,
                40 + turn, 3);
    }

    private record Run(Trajectory trajectory, List<Integer> policyTurns, List<Completion> completions, FakeTool ledger) {}

    private Run run(EpisodeHistory history) {
        return run(history, true);
    }

    /** The ledger's calls declared idempotent (they may run again after a crash) or not. */
    private Run run(EpisodeHistory history, boolean idempotent) {
        List<Integer> asked = new CopyOnWriteArrayList<>();
        List<Completion> completions = new CopyOnWriteArrayList<>();
        ScriptedPolicy policy = ScriptedPolicy.completions(req -> {
            asked.add(req.turn());
            Completion c = said(req.turn());
            completions.add(c);
            return c;
        });
        FakeTool ledger = FakeTool.named("ledger", args -> "entry " + args.get("entry").asInt() + " = " + args.get("entry").asInt())
                .withIdempotent(idempotent);
        EpisodeHarness h = EpisodeHarness.on(kit, policy, ToolRegistry.of(new FinishTool()).plus(ledger));
        Trajectory t = h.resume("swarm:root/sum", TASK, h.spec(), history);
        return new Run(t, asked, completions, ledger);
    }

    /** The steps of an uninterrupted run: each completion, and the results its observation turn fed back. */
    private static List<EpisodeHistory.Step> steps(Run full) {
        List<EpisodeHistory.Step> steps = new ArrayList<>();
        List<Turn> turns = full.trajectory().turns();
        int k = 0;
        for (int i = 0; i < turns.size(); i++) {
            if (!turns.get(i).isAssistant()) continue;
            List<dev.agentswarm.core.protocol.ToolResult> results = i + 1 < turns.size() ? turns.get(i + 1).toolResults() : List.of();
            steps.add(new EpisodeHistory.Step(full.completions().get(k++), results));
        }
        return steps;
    }

    private static List<Turn> withoutTimings(Trajectory t) {
        return t.turns().stream().map(Turn::withoutTimings).toList();
    }

    @Test
    void anEpisodeResumesAtItsNextTurnWithoutCallingThePolicyOrTheToolsAgain() {
        Run full = run(EpisodeHistory.NONE);
        assertEquals(StopReason.FINAL_ANSWER, full.trajectory().stopReason());
        assertEquals(List.of(1, 2, 3, 4), full.policyTurns());
        assertEquals(3, full.ledger().callCount());

        Run resumed = run(new EpisodeHistory(steps(full).subList(0, 2)));
        assertEquals(List.of(3, 4), resumed.policyTurns(), "the policy is asked from the turn after the history on");
        assertEquals(1, resumed.ledger().callCount(), "only the live turn's call ran");
        assertEquals(3, resumed.ledger().calls().get(0).arguments().get("entry").asInt());
        assertEquals("The sum is 6", resumed.trajectory().finalAnswer());
        assertEquals(withoutTimings(full.trajectory()), withoutTimings(resumed.trajectory()), "the uninterrupted trajectory, turn for turn");
        assertEquals(full.trajectory().stats().toolCalls(), resumed.trajectory().stats().toolCalls());
        assertEquals(full.trajectory().stats().turns(), resumed.trajectory().stats().turns());
    }

    @Test
    void callsInFlightAtTheCrashRunAgainAndAFullHistoryOnlyAnswers() {
        Run full = run(EpisodeHistory.NONE);
        List<EpisodeHistory.Step> steps = steps(full);
        List<EpisodeHistory.Step> inFlight = new ArrayList<>(steps.subList(0, 2));
        inFlight.add(new EpisodeHistory.Step(steps.get(2).completion(), null)); // turn 3 said, its call not done
        Run resumed = run(new EpisodeHistory(inFlight));
        assertEquals(List.of(4), resumed.policyTurns());
        assertEquals(1, resumed.ledger().callCount(), "the idempotent call in flight ran again: at-least-once");
        assertEquals(withoutTimings(full.trajectory()), withoutTimings(resumed.trajectory()));

        Run done = run(new EpisodeHistory(steps));
        assertEquals(List.of(), done.policyTurns(), "every turn was recorded");
        assertEquals(0, done.ledger().callCount());
        assertEquals("The sum is 6", done.trajectory().finalAnswer());
        assertNull(done.trajectory().error());
    }

    @Test
    void aCallInFlightOfAToolThatIsNotIdempotentIsNotRunAgainAndTheModelIsToldItWasInterrupted() {
        Run full = run(EpisodeHistory.NONE, false);
        List<EpisodeHistory.Step> steps = steps(full);
        List<EpisodeHistory.Step> inFlight = new ArrayList<>(steps.subList(0, 2));
        inFlight.add(new EpisodeHistory.Step(steps.get(2).completion(), null));
        Run resumed = run(new EpisodeHistory(inFlight), false);

        assertEquals(0, resumed.ledger().callCount(), "at most once: the call that may have run is not run again");
        assertEquals(List.of(4), resumed.policyTurns(), "the episode goes on after the interrupted turn");
        List<Turn> turns = resumed.trajectory().turns();
        ToolResult interrupted = turns.get(5).toolResults().get(0);
        assertEquals(ToolStatus.INTERRUPTED, interrupted.status(), "the trajectory shows the interrupted call");
        assertEquals("call_0", interrupted.callId());
        assertTrue(interrupted.content().contains("interrupted by a crash") && interrupted.content().contains("unknown"),
                interrupted.content());
        assertTrue(turns.get(5).text().contains("interrupted by a crash"), "the model reads it: " + turns.get(5).text());
        assertEquals(withoutTimings(full.trajectory()).subList(0, 5), withoutTimings(resumed.trajectory()).subList(0, 5),
                "the turns before are the uninterrupted ones");
        assertEquals(2, resumed.trajectory().stats().toolSuccesses(), "an interrupted call is not a success");
    }

    /**
     * One turn calls pay (not idempotent) twice and look (idempotent) once; the crash came after the first
     * pay had finished and been journaled. On resume the first pay's result is the journaled one, look runs
     * again, the second pay is reported interrupted, each in its place.
     */
    @Test
    void aStepWithSeveralCallsSomeFinishedBeforeTheCrashKeepsTheirResultsAndRunsOnlyWhatMayRunAgain() {
        List<Integer> asked = new CopyOnWriteArrayList<>();
        String three = EpisodeLoopTest.call("pay", "{\"to\": \"ann\"}") + "\n" + EpisodeLoopTest.call("look", "{\"at\": \"ann\"}")
                + "\n" + EpisodeLoopTest.call("pay", "{\"to\": \"bob\"}");
        Completion step1 = new Completion(three, List.of(), new int[] {1, 2}, new float[] {-0.5f, -0.5f}, FinishReason.STOP, 3, 30, 2);
        ScriptedPolicy policy = ScriptedPolicy.completions(req -> {
            asked.add(req.turn());
            return req.turn() == 1 ? step1 : new Completion("done", List.of(), new int[] {3}, new float[] {-0.1f}, FinishReason.STOP, 3,
                    1, 1);
        });
        FakeTool pay = FakeTool.named("pay", args -> "paid " + args.get("to").asText());
        FakeTool look = FakeTool.named("look", args -> "balance of " + args.get("at").asText()).withIdempotent(true);
        EpisodeHarness h = EpisodeHarness.on(kit, policy, ToolRegistry.of(new FinishTool()).plus(pay).plus(look));
        ToolResult paidAnn = new ToolResult("call_0", "pay", "paid ann", ToolStatus.OK, false, 5);
        Trajectory t = h.resume("swarm:root/pay", TASK, h.spec(), new EpisodeHistory(List.of(new EpisodeHistory.Step(step1,
                List.of(paidAnn)))));

        assertEquals(List.of(2), asked, "the policy is asked after the recorded turn only");
        assertEquals(0, pay.callCount(), "neither pay runs: one is journaled, the other may have run");
        assertEquals(1, look.callCount(), "look may run again, and does");
        List<ToolResult> results = t.turns().get(1).toolResults();
        assertEquals(List.of("call_0", "call_1", "call_2"), results.stream().map(ToolResult::callId).toList(), "in call order");
        assertEquals(paidAnn, results.get(0), "the journaled result stands");
        assertEquals("balance of ann", results.get(1).content());
        assertEquals(ToolStatus.OK, results.get(1).status());
        assertEquals(ToolStatus.INTERRUPTED, results.get(2).status());
        assertEquals("done", t.finalAnswer());
    }

    /**
     * In a swarm, a turn that calls a tool that is not idempotent first has the swarm journal its
     * completion, and its calls start only once the swarm says the journal holds it; each such call's
     * result is told as soon as it ends, before the turn's other calls are done.
     */
    @Test
    void inASwarmACallThatMustNotRunTwiceWaitsUntilTheJournalHoldsItsTurn() {
        String both = EpisodeLoopTest.call("pay", "{\"to\": \"ann\"}") + "\n" + EpisodeLoopTest.call("ship", "{\"to\": \"ann\"}");
        ScriptedPolicy policy = ScriptedPolicy.texts(req -> req.turn() == 1 ? both : "sent");
        FakeTool pay = FakeTool.named("pay", args -> "paid " + args.get("to").asText());
        FakeTool ship = FakeTool.named("ship", args -> "shipped to " + args.get("to").asText()).withLatency(java.time.Duration.ofMillis(600));
        EpisodeHarness h = EpisodeHarness.on(kit, policy, ToolRegistry.of(new FinishTool()).plus(pay).plus(ship));
        TestProbe<SwarmProtocol.Command> swarm = kit.createTestProbe(SwarmProtocol.Command.class);
        TestProbe<Trajectory> answer = kit.createTestProbe(Trajectory.class);
        h.startInSwarm("swarm:root/pay", TASK, h.spec(), EpisodeHistory.NONE, swarm.getRef(), answer.getRef());

        SwarmProtocol.RecordBeforeCalls first = next(swarm, SwarmProtocol.RecordBeforeCalls.class);
        assertEquals(1, first.turn());
        assertNull(first.record().results(), "the completion alone, before any call");
        assertEquals(both, first.record().completion().text());
        swarm.expectNoMessage(java.time.Duration.ofMillis(200));
        assertEquals(0, pay.callCount() + ship.callCount(), "no call starts before the journal holds the turn");

        first.replyTo().tell(new SwarmProtocol.Recorded(first.episodeId(), first.turn()));
        SwarmProtocol.StepRecorded partial = next(swarm, SwarmProtocol.StepRecorded.class);
        assertEquals(List.of("paid ann"), partial.record().results().stream().map(ToolResult::content).toList(),
                "pay's result is told while ship still runs");
        SwarmProtocol.StepRecorded whole = next(swarm, SwarmProtocol.StepRecorded.class);
        assertEquals(List.of("paid ann", "shipped to ann"), whole.record().results().stream().map(ToolResult::content).toList());
        SwarmProtocol.StepRecorded last = next(swarm, SwarmProtocol.StepRecorded.class);
        assertEquals(2, last.turn());
        assertEquals("sent", answer.receiveMessage(java.time.Duration.ofSeconds(10)).finalAnswer());
        assertEquals(1, pay.callCount());
        assertEquals(1, ship.callCount());
    }

    /** The next message of type {@code type} the swarm got, skipping progress reports. */
    private static <T extends SwarmProtocol.Command> T next(TestProbe<SwarmProtocol.Command> swarm, Class<T> type) {
        while (true) {
            SwarmProtocol.Command m = swarm.receiveMessage(java.time.Duration.ofSeconds(10));
            if (m instanceof SwarmProtocol.EpisodeProgress) continue;
            assertTrue(type.isInstance(m), "expected " + type.getSimpleName() + ", got " + m);
            return type.cast(m);
        }
    }
}
