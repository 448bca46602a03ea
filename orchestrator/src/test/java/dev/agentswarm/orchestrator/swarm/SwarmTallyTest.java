package dev.agentswarm.orchestrator.swarm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Trajectory;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SwarmTallyTest {

    private static SubTask task(String id, SubAgentMode mode, String... dependsOn) {
        return new SubTask(id, "goal " + id, mode, List.of(), List.of(dependsOn));
    }

    @Test
    void missingAgentsIncludeFailuresAndWhatANestedOrchestratorMissed() {
        // Round 1 at the orchestrator's turn 2: a (3 steps) done, then b (4 steps, needs a) failed.
        Plan p1 = new Plan(List.of(task("a", SubAgentMode.SEARCH), task("b", SubAgentMode.CODING, "a")), List.of(List.of("a"), List.of("b")));
        RoundState r1 = new RoundState(1, p1);
        r1.started("a");
        r1.done("a", "A", 3, 30);
        r1.started("b");
        r1.failed("b", "crashed", 4, 40);
        // Round 2 at turn 5: c, a nested orchestrator, done in 5 critical steps, though it missed one of its own.
        Plan p2 = new Plan(List.of(task("c", SubAgentMode.ORCHESTRATOR)), List.of(List.of("c")));
        RoundState r2 = new RoundState(2, p2);
        r2.started("c");
        r2.done("c", "C", 5, 50);
        SwarmResult nested = new SwarmResult("root/c", "C", StopReason.FINAL_ANSWER, null, null, List.of(), List.of("root/c/x"),
                null, new SwarmResult.Metrics(5, 9, 1.8, 0, 0, 2, 9, 90, 1), null);
        Trajectory aTrajectory = Trajectory.notRun("run:root/a", "run", "t", StopReason.FINAL_ANSWER, null);

        SwarmTally tally = SwarmTally.of(List.of(new SwarmLedger.Round(r1, 2, Map.of("a", "root/a", "b", "root/b")),
                        new SwarmLedger.Round(r2, 5, Map.of("c", "root/c"))), 7,
                Map.of("root/a", List.of(aTrajectory)), Map.of("root/c", nested));

        assertEquals(List.of("root/b", "root/c/x"), tally.missing());
        assertEquals(List.of("root/a", "root/b", "root/c"), tally.subAgents().stream().map(SwarmResult.SubAgent::agent).toList());
        SwarmResult.SubAgent a = tally.subAgents().get(0);
        assertEquals(RoundState.State.DONE, a.state());
        assertEquals(List.of(aTrajectory), a.trajectories());
        assertEquals(List.of(), tally.subAgents().get(1).trajectories(), "no trajectory kept: none listed");
        assertSame(nested, tally.subAgents().get(2).nested());
        assertEquals(2, tally.subAgents().get(2).round());
        // Critical: 2 turns, the chain a→b (7), 3 turns, c (5), the last 2 turns. Total adds every step.
        assertEquals(2 + 7 + 3 + 5 + 2, tally.steps().critical());
        assertEquals(2 + 3 + 4 + 3 + 5 + 2, tally.steps().total());
    }

    @Test
    void anOrchestratorThatNeverPlannedHasOnlyItsOwnTurns() {
        SwarmTally tally = SwarmTally.of(List.of(), 4, Map.of(), Map.of());
        assertEquals(List.of(), tally.subAgents());
        assertEquals(List.of(), tally.missing());
        assertEquals(4, tally.steps().critical());
        assertEquals(1.0, tally.steps().parallelism());
    }
}
