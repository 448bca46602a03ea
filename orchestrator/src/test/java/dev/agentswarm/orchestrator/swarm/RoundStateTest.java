package dev.agentswarm.orchestrator.swarm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.reward.AnswerText;
import dev.agentswarm.orchestrator.swarm.RoundState.State;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RoundStateTest {

    private static Plan plan(String json) throws Exception {
        PlanCheck.Result r = PlanCheck.check(Json.parse(json), new PlanCheck.Limits(Set.of(), 10));
        assertTrue(r.ok(), r.problems().toString());
        return r.plan();
    }

    /** Independent sub-tasks with the given ids, all joined by {@code join}. */
    private static RoundState independent(Join join, String... ids) throws Exception {
        StringBuilder json = new StringBuilder("{\"subtasks\": [");
        for (int i = 0; i < ids.length; i++) json.append(i == 0 ? "" : ", ").append("{\"id\": \"").append(ids[i]).append("\", \"goal\": \"g\"}");
        Plan p = plan(json.append("]}").toString());
        return new RoundState(1, new Plan(p.subTasks(), p.stages(), join));
    }

    private static List<String> ids(List<SubTask> tasks) {
        return tasks.stream().map(SubTask::id).toList();
    }

    private static State state(RoundState r, String id) {
        return r.status(id).state();
    }

    @Test
    void startsReadySubTasksInPlanOrderUpToTheSlots() throws Exception {
        RoundState r = new RoundState(1, plan("""
                {"subtasks": [{"id": "c", "goal": "g", "depends_on": ["a"]}, {"id": "a", "goal": "g"},
                  {"id": "b", "goal": "g"}, {"id": "d", "goal": "g"}]}"""));
        assertEquals(List.of(), ids(r.start(0)));
        assertEquals(List.of("a", "b"), ids(r.start(2)), "c waits for a; d waits for a slot");
        assertEquals(State.RUNNING, state(r, "a"));
        assertEquals(1, r.status("a").attempts());
        assertEquals(State.PENDING, state(r, "d"));
        assertEquals(List.of("d"), ids(r.start(5)), "c's dependency is running, not done");
        assertEquals(List.of(), ids(r.start(5)), "nothing starts twice");
        r.done("a", "A", 1, 1);
        assertEquals(List.of("c"), ids(r.start(5)));
    }

    @Test
    void aFailureSkipsItsDependentsTransitivelyAndNothingElse() throws Exception {
        RoundState r = new RoundState(1, plan("""
                {"subtasks": [{"id": "a", "goal": "g"}, {"id": "b", "goal": "g", "depends_on": ["a"]},
                  {"id": "c", "goal": "g", "depends_on": ["b"]}, {"id": "d", "goal": "g"},
                  {"id": "e", "goal": "g", "depends_on": ["d", "a"]}]}"""));
        assertEquals(List.of("a"), ids(r.start(1)));
        r.failed("a", "tool crashed", 3, 100);
        assertEquals(new RoundState.Status(State.FAILED, null, "tool crashed", 1, 3, 100), r.status("a"));
        assertEquals(new RoundState.Status(State.SKIPPED, null, "depends on a, which failed", 0, 0, 0), r.status("b"));
        assertEquals("depends on b, which was skipped", r.status("c").detail());
        assertEquals(State.SKIPPED, state(r, "c"));
        assertEquals(State.SKIPPED, state(r, "e"), "one failed dependency is enough");
        assertEquals(State.PENDING, state(r, "d"), "d does not depend on a");
        assertEquals(List.of("d"), ids(r.start(5)));
        r.done("d", "D", 1, 1);
        assertTrue(r.over());
        assertEquals(3, r.count(State.SKIPPED));
    }

    @Test
    void aCancellationSkipsItsDependentsLikewise() throws Exception {
        RoundState r = new RoundState(1, plan("""
                {"subtasks": [{"id": "a", "goal": "g"}, {"id": "b", "goal": "g", "depends_on": ["a"]},
                  {"id": "c", "goal": "g", "depends_on": ["b"]}, {"id": "d", "goal": "g"}]}"""));
        assertEquals(List.of("a", "d"), ids(r.start(5)));
        r.cancelled("a", "budget spent", 2, 20);
        assertEquals(State.CANCELLED, state(r, "a"));
        assertEquals("budget spent", r.status("a").detail());
        assertEquals("depends on a, which was cancelled", r.status("b").detail());
        assertEquals(State.SKIPPED, state(r, "c"));
        assertEquals(State.RUNNING, state(r, "d"), "an unrelated running sub-task carries on");
        assertFalse(r.over());
    }

    @Test
    void aRetryAddsAnAttemptAndKeepsTheStepsAndTokensSoFar() throws Exception {
        RoundState r = independent(Join.ALL, "a");
        r.start(1);
        r.retry("a", 2, 50);
        r.retry("a", 3, 60);
        assertEquals(new RoundState.Status(State.RUNNING, null, null, 3, 5, 110), r.status("a"));
        r.done("a", "42", 4, 70);
        assertEquals(new RoundState.Status(State.DONE, "42", null, 3, 9, 180), r.status("a"));
        assertEquals(Map.of("a", 9L), r.steps());
    }

    @Test
    void stopSkipsThePendingReturnsTheRunningAndStartsNothingMore() throws Exception {
        RoundState r = new RoundState(1, plan("""
                {"subtasks": [{"id": "a", "goal": "g"}, {"id": "b", "goal": "g", "depends_on": ["a"]},
                  {"id": "c", "goal": "g"}]}"""));
        assertEquals(List.of("a"), ids(r.start(1)));
        assertEquals(List.of("a"), r.stop("turn budget spent"));
        assertEquals("turn budget spent", r.stoppedBecause());
        assertEquals(new RoundState.Status(State.SKIPPED, null, "turn budget spent", 0, 0, 0), r.status("b"));
        assertEquals(State.SKIPPED, state(r, "c"));
        assertEquals(State.RUNNING, state(r, "a"), "the caller cancels the running ones");
        r.done("a", "A", 1, 1);
        assertEquals(List.of(), r.start(5));
        assertEquals(List.of(), r.stop("deadline"));
        assertEquals("turn budget spent", r.stoppedBecause(), "the first reason stands");
        assertTrue(r.over());
    }

    @Test
    void aDependentIsGivenItsDependenciesAnswersInItsOrder() throws Exception {
        RoundState r = new RoundState(1, plan("""
                {"subtasks": [{"id": "a", "goal": "g"}, {"id": "b", "goal": "g"},
                  {"id": "c", "goal": "g", "depends_on": ["b", "a"]}]}"""));
        r.start(2);
        r.done("a", "Paris", 1, 1);
        r.done("b", "Lyon", 1, 1);
        Map<String, String> answers = r.dependencyAnswers(r.plan().subTask("c"));
        assertEquals(Map.of("b", "Lyon", "a", "Paris"), answers);
        assertEquals(List.of("b", "a"), List.copyOf(answers.keySet()));
        assertEquals(Map.of(), r.dependencyAnswers(r.plan().subTask("a")));
    }

    @Test
    void joinAllWaitsForEverySubTaskToEnd() throws Exception {
        RoundState r = independent(Join.ALL, "a", "b");
        r.start(2);
        r.done("a", "A", 1, 1);
        assertFalse(r.joinReached());
        r.failed("b", "crashed", 1, 1);
        assertTrue(r.joinReached(), "a failure ends a sub-task too");
    }

    @Test
    void joinFirstKWaitsForKAnswersOrForEverythingToEnd() throws Exception {
        RoundState r = independent(new Join(Join.Kind.FIRST_K, 2), "a", "b", "c");
        r.start(3);
        r.done("a", "A", 1, 1);
        r.failed("b", "crashed", 1, 1);
        assertFalse(r.joinReached(), "one answer of two");
        r.done("c", "C", 1, 1);
        assertTrue(r.joinReached());

        RoundState fewer = independent(new Join(Join.Kind.FIRST_K, 2), "a", "b", "c");
        fewer.start(3);
        fewer.done("a", "A", 1, 1);
        fewer.failed("b", "crashed", 1, 1);
        assertFalse(fewer.joinReached());
        fewer.cancelled("c", "deadline", 1, 1);
        assertTrue(fewer.joinReached(), "only one answer, but nothing more can come");

        RoundState early = independent(new Join(Join.Kind.FIRST_K, 1), "a", "b");
        early.start(2);
        early.done("b", "B", 1, 1);
        assertTrue(early.joinReached(), "k answers in while others still run");
    }

    @Test
    void quorumNeedsMoreThanHalfOfTheRoundAgreeingOnTheNormalisedAnswer() throws Exception {
        RoundState r = independent(new Join(Join.Kind.QUORUM, 0), "a", "b", "c", "d");
        r.start(4);
        r.done("a", "Paris", 1, 1);
        r.done("b", " paris.", 1, 1);
        r.done("c", "Lyon", 1, 1);
        assertNull(r.majorityAnswer(), "2 of 4 is not more than half");
        assertFalse(r.joinReached());
        r.done("d", "PARIS!", 1, 1);
        assertEquals("paris", AnswerText.normalize(r.majorityAnswer()));
        assertTrue(r.joinReached());

        RoundState early = independent(new Join(Join.Kind.QUORUM, 0), "a", "b", "c");
        early.start(3);
        early.done("a", "Paris", 1, 1);
        early.done("b", "the Paris", 1, 1);
        assertTrue(early.joinReached(), "2 of 3 agree while c still runs");

        RoundState split = independent(new Join(Join.Kind.QUORUM, 0), "a", "b");
        split.start(2);
        split.done("a", "Paris", 1, 1);
        split.done("b", "Lyon", 1, 1);
        assertNull(split.majorityAnswer());
        assertTrue(split.joinReached(), "no quorum, but everything has ended");
    }

    @Test
    void theObservationListsEverySubTaskAndWhatIsMissing() throws Exception {
        RoundState r = new RoundState(2, plan("""
                {"subtasks": [{"id": "a", "goal": "g"}, {"id": "b", "goal": "g"}, {"id": "c", "goal": "g"},
                  {"id": "d", "goal": "g", "depends_on": ["c"]}, {"id": "e", "goal": "g"}]}"""));
        r.start(4);
        r.done("a", "0123456789abcdefghijKLMNOPQRST", 1, 1);
        r.retry("b", 1, 1);
        r.failed("b", "tool crashed", 1, 1);
        r.cancelled("c", "join reached", 1, 1);
        String o = r.observation("The turn budget is spent.", 20);
        assertEquals(String.join("\n",
                "The turn budget is spent.",
                "Round 2: 5 sub-agents, 1 answered.",
                "[a] answer: 0123456789abcdefghij […10 more characters]",
                "[b] failed after 2 attempts: tool crashed",
                "[c] cancelled: join reached",
                "[d] not run: depends on c, which was cancelled",
                "[e] running",
                "Missing: b, c, d, e."), o);
        assertTrue(r.observation(null, 20).startsWith("Round 2: "), "no preface, no blank line");
    }

    @Test
    void theObservationOfAJoinedRoundNamesTheJoinAndTheMajority() throws Exception {
        RoundState r = independent(new Join(Join.Kind.QUORUM, 0), "a", "b", "c");
        r.start(3);
        r.done("a", "Paris", 1, 1);
        r.done("b", "Paris", 1, 1);
        r.done("c", "Paris", 1, 1);
        String o = r.observation(null, 100);
        assertTrue(o.startsWith("Round 1: 3 sub-agents, 3 answered (join quorum)."), o);
        assertTrue(o.endsWith("\nMajority answer: Paris"), o);
        assertFalse(o.contains("Missing"), o);
    }

    @Test
    void endingASubTaskThatIsNotRunningIsRefused() throws Exception {
        RoundState r = independent(Join.ALL, "a", "b");
        assertThrows(IllegalStateException.class, () -> r.done("a", "A", 1, 1), "pending");
        assertThrows(IllegalStateException.class, () -> r.failed("a", "x", 1, 1), "pending");
        assertThrows(IllegalStateException.class, () -> r.done("ghost", "A", 1, 1), "not in the plan");
        r.start(1);
        r.done("a", "A", 1, 1);
        assertThrows(IllegalStateException.class, () -> r.done("a", "again", 1, 1), "already done");
        assertThrows(IllegalStateException.class, () -> r.retry("a", 1, 1), "already done");
        assertThrows(IllegalStateException.class, () -> r.cancelled("a", "late", 1, 1), "already done");
        assertEquals(new RoundState.Status(State.DONE, "A", null, 1, 1, 1), r.status("a"), "unchanged by the refused calls");
    }
}
