package dev.agentswarm.orchestrator.swarm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.json.Json;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CriticalStepsTest {

    private static Plan plan(String json) throws Exception {
        PlanCheck.Result r = PlanCheck.check(Json.parse(json), new PlanCheck.Limits(Set.of(), 10));
        assertTrue(r.ok(), r.problems().toString());
        return r.plan();
    }

    @Test
    void aKnownScheduleByHand() throws Exception {
        // a (3) and b (5) first; c (2) needs both, d (4) needs a. Chains: a→c 5, b→c 7, a→d 7: the round waits 7.
        Plan p = plan("""
                {"subtasks": [{"id": "a", "goal": "x"}, {"id": "b", "goal": "x"},
                  {"id": "c", "goal": "x", "depends_on": ["a", "b"]}, {"id": "d", "goal": "x", "depends_on": ["a"]}]}""");
        Map<String, Long> steps = Map.of("a", 3L, "b", 5L, "c", 2L, "d", 4L);
        assertEquals(7, CriticalSteps.longestPath(p, steps));
        // Round 1: 2 orchestrator steps, then the plan; round 2: one step to finish.
        CriticalSteps.Summary s = CriticalSteps.of(List.of(new CriticalSteps.Round(2, p, steps), new CriticalSteps.Round(1, null, null)));
        assertEquals(2 + 7 + 1, s.critical());
        assertEquals(2 + 3 + 5 + 2 + 4 + 1, s.total());
        assertEquals(17.0 / 10, s.parallelism(), 1e-12);
    }

    @Test
    void aChainIsSerialAndIndependentSubAgentsCostTheSlowest() throws Exception {
        Plan chain = plan("""
                {"subtasks": [{"id": "a", "goal": "x"}, {"id": "b", "goal": "x", "depends_on": ["a"]},
                  {"id": "c", "goal": "x", "depends_on": ["b"]}]}""");
        Plan fan = plan("{\"subtasks\": [{\"id\": \"a\", \"goal\": \"x\"}, {\"id\": \"b\", \"goal\": \"x\"}, {\"id\": \"c\", \"goal\": \"x\"}]}");
        Map<String, Long> steps = Map.of("a", 4L, "b", 6L, "c", 1L);
        assertEquals(11, CriticalSteps.longestPath(chain, steps), "a chain waits for every step");
        assertEquals(6, CriticalSteps.longestPath(fan, steps), "parallel sub-agents wait for the slowest");
        assertEquals(1.0, CriticalSteps.of(List.of(new CriticalSteps.Round(1, chain, steps))).parallelism(), 1e-12);
        assertEquals(4, CriticalSteps.longestPath(fan, Map.of("a", 4L)), "a sub-task that never ran weighs nothing");
        assertEquals(1.0, CriticalSteps.of(List.of()).parallelism());
        assertThrows(IllegalArgumentException.class, () -> CriticalSteps.longestPath(fan, Map.of("a", -1L)));
    }
}
