package dev.agentswarm.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.EpisodeHistory;
import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
import dev.agentswarm.core.tool.FinishTool;
import dev.agentswarm.core.tool.ToolRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
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
        List<Integer> asked = new CopyOnWriteArrayList<>();
        List<Completion> completions = new CopyOnWriteArrayList<>();
        ScriptedPolicy policy = ScriptedPolicy.completions(req -> {
            asked.add(req.turn());
            Completion c = said(req.turn());
            completions.add(c);
            return c;
        });
        FakeTool ledger = FakeTool.named("ledger", args -> "entry " + args.get("entry").asInt() + " = " + args.get("entry").asInt());
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
        assertEquals(1, resumed.ledger().callCount(), "the call in flight ran again: at-least-once");
        assertEquals(withoutTimings(full.trajectory()), withoutTimings(resumed.trajectory()));

        Run done = run(new EpisodeHistory(steps));
        assertEquals(List.of(), done.policyTurns(), "every turn was recorded");
        assertEquals(0, done.ledger().callCount());
        assertEquals("The sum is 6", done.trajectory().finalAnswer());
        assertNull(done.trajectory().error());
    }
}
