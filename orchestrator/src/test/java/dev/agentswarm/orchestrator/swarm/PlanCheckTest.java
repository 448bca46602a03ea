package dev.agentswarm.orchestrator.swarm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.json.Json;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PlanCheckTest {

    private static final PlanCheck.Limits LIMITS = new PlanCheck.Limits(Set.of("search", "python", "calculator"), 5);

    private static PlanCheck.Result check(String json) throws Exception {
        return PlanCheck.check(Json.parse(json), LIMITS);
    }

    @Test
    void aValidPlanComesWithItsStages() throws Exception {
        PlanCheck.Result r = check("""
                {"subtasks": [
                  {"id": "report", "goal": "Write the comparison", "depends_on": ["pop-a", "pop-b"]},
                  {"id": "pop-a", "goal": "Population of A", "mode": "search", "tools": ["search"]},
                  {"id": "pop-b", "goal": "Population of B", "mode": "search", "tools": ["search"]},
                  {"id": "ratio", "goal": "Compute the ratio", "mode": "coding", "tools": ["python"], "depends_on": ["pop-a", "pop-b", "pop-a"]}
                ]}""");
        assertTrue(r.ok(), r.problems().toString());
        assertEquals(List.of(List.of("pop-a", "pop-b"), List.of("report", "ratio")), r.plan().stages(), "independent sub-tasks share a stage");
        SubTask ratio = r.plan().subTasks().get(3);
        assertEquals(SubAgentMode.CODING, ratio.mode());
        assertEquals(List.of("pop-a", "pop-b"), ratio.dependsOn(), "a repeated dependency counts once");
        assertEquals(SubAgentMode.GENERAL, r.plan().subTasks().get(0).mode(), "general when no mode is given");
    }

    @Test
    void everyProblemIsNamedInOneObservation() throws Exception {
        PlanCheck.Result r = check("""
                {"subtasks": [
                  {"id": "a", "goal": "x", "tools": ["sql"], "depends_on": ["ghost"]},
                  {"id": "a", "goal": "y"},
                  {"id": "b", "mode": "poet"},
                  {"goal": "no id"},
                  {"id": "c", "goal": "z", "depends_on": ["c"], "tools": "search"},
                  {"id": "d", "goal": "w"}
                ]}""");
        assertFalse(r.ok());
        assertNull(r.plan());
        String o = r.observation();
        assertTrue(o.startsWith("The plan was not run. Fix these and call spawn_subagents again:"), o);
        for (String expected : List.of("asks for tool \"sql\", which is not available; available: [calculator, python, search]",
                "depends on \"ghost\", which is not in the plan", "id \"a\" is used twice", "sub-task \"b\" needs a \"goal\"",
                "has mode \"poet\"; use one of [search, coding, general, orchestrator]", "sub-task 4 needs an \"id\"", "sub-task \"c\" depends on itself",
                "\"tools\" must be a list of names", "6 sub-tasks exceed the budget of 5 sub-agents left")) {
            assertTrue(o.contains(expected), "missing <" + expected + "> in\n" + o);
        }
    }

    @Test
    void cyclesAreNamedOnceEachFromTheirSmallestId() throws Exception {
        PlanCheck.Result r = check("""
                {"subtasks": [
                  {"id": "c", "goal": "x", "depends_on": ["a"]},
                  {"id": "a", "goal": "x", "depends_on": ["b"]},
                  {"id": "b", "goal": "x", "depends_on": ["c"]},
                  {"id": "d", "goal": "x", "depends_on": ["e"]},
                  {"id": "e", "goal": "x", "depends_on": ["d", "a"]}
                ]}""");
        assertEquals(List.of("the dependencies form a cycle: a → b → c → a: remove one of these depends_on",
                "the dependencies form a cycle: d → e → d: remove one of these depends_on"), r.problems());
    }

    @Test
    void argumentsThatAreNotAPlanAreRefusedWithTheShapeToUse() throws Exception {
        for (String bad : List.of("{}", "{\"subtasks\": []}", "{\"subtasks\": \"all of it\"}")) {
            PlanCheck.Result r = check(bad);
            assertEquals(1, r.problems().size(), bad);
            assertTrue(r.problems().get(0).contains("\"subtasks\" must be a non-empty list"), r.problems().toString());
        }
        assertTrue(PlanCheck.check(null, LIMITS).problems().get(0).contains("non-empty list"));
        assertTrue(check("{\"subtasks\": [42]}").problems().contains("sub-task 1 is not an object"));
        assertThrows(IllegalArgumentException.class, () -> new PlanCheck.Limits(Set.of(), -1));
        PlanCheck.Result spent = PlanCheck.check(Json.parse("{\"subtasks\": [{\"id\": \"a\", \"goal\": \"g\"}]}"),
                new PlanCheck.Limits(Set.of(), 0));
        assertEquals(List.of("the budget of sub-agents is spent: finish with what you have"), spent.problems());
    }

    @Test
    void joinIsReadAndCheckedAgainstThePlan() throws Exception {
        String two = "{\"id\": \"a\", \"goal\": \"g\"}, {\"id\": \"b\", \"goal\": \"g\"}";
        assertEquals(Join.ALL, check("{\"subtasks\": [" + two + "]}").plan().join());
        assertEquals(new Join(Join.Kind.FIRST_K, 1), check("{\"subtasks\": [" + two + "], \"join\": \"first_k\", \"k\": 1}").plan().join());
        assertEquals(Join.Kind.QUORUM, check("{\"subtasks\": [" + two + "], \"join\": \"quorum\"}").plan().join().kind());
        assertTrue(check("{\"subtasks\": [" + two + "], \"join\": \"first_k\"}").problems().get(0).contains("needs \"k\""));
        assertTrue(check("{\"subtasks\": [" + two + "], \"join\": \"first_k\", \"k\": 3}").problems().get(0)
                .contains("waits for 3 answers but the plan has 2"));
        assertTrue(check("{\"subtasks\": [" + two + "], \"join\": \"any\"}").problems().get(0).contains("use \"all\", \"first_k\""));
    }

    @Test
    void anOrchestratorSubTaskIsRefusedAtTheDepthLimit() throws Exception {
        String plan = "{\"subtasks\": [{\"id\": \"deep\", \"goal\": \"split this\", \"mode\": \"orchestrator\"}]}";
        assertTrue(check(plan).ok());
        PlanCheck.Result r = PlanCheck.check(Json.parse(plan), new PlanCheck.Limits(Set.of(), 5, false));
        assertEquals(List.of("sub-task \"deep\" is an orchestrator, but the swarm's depth limit is reached here: give it another mode"),
                r.problems());
    }
}
