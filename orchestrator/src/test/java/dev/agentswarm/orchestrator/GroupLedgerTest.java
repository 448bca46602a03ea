package dev.agentswarm.orchestrator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.core.protocol.InfraFailure;
import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
import java.util.List;
import org.junit.jupiter.api.Test;

class GroupLedgerTest {

    private static final List<Task> TASKS = List.of(Task.of("t0", "a"), Task.of("t1", "b"), Task.of("t2", "c"));

    static Trajectory answer(String episodeId, long policyVersion) {
        Turn turn = Turn.assistant(0, new Completion("x", List.of(), new int[] {1}, new float[] {-1}, FinishReason.STOP, policyVersion, 1, 1),
                List.of(), List.of(), null, null);
        return new Trajectory(episodeId, episodeId.substring(0, episodeId.indexOf('#')), "t", List.of(), List.of(turn), "x",
                StopReason.FINAL_ANSWER, null, null, null);
    }

    @Test
    void wholeGroupsGoOutWhileTheyFitAndTasksWrapAround() {
        GroupLedger l = new GroupLedger(TASKS, 4, 10, 1, 1, 2);
        List<GroupLedger.Launch> first = l.launch(Integer.MAX_VALUE, 0);
        assertEquals(8, first.size(), "two groups of 4 fit under 10, a third would not");
        assertEquals("t2", first.get(0).task().id(), "the cursor starts at 2");
        assertEquals("t0", first.get(4).task().id(), "and wraps");
        assertEquals("g0-t2#3", first.get(3).episodeId());
        assertEquals(4, l.cursor());
        assertTrue(l.launch(Integer.MAX_VALUE, 0).isEmpty());
        assertTrue(l.accept(answer("g0-t2#0", 0), 0).taken());
        assertFalse(l.accept(answer("g0-t2#0", 0), 0).taken(), "an id is answered at most once");
        assertFalse(l.accept(answer("nobody#1", 0), 0).taken());
        assertEquals(7, l.inflight());
        assertTrue(l.launch(Integer.MAX_VALUE, 0).isEmpty(), "7 + 4 > 10");
    }

    @Test
    void completeGroupsMakeBatchesAndStaleOnesAreDropped() {
        GroupLedger l = new GroupLedger(TASKS, 2, 8, 2, 1, 0);
        l.launch(Integer.MAX_VALUE, 0); // g0..g3
        for (String g : List.of("g0-t0", "g1-t1")) {
            l.accept(answer(g + "#0", 0), 0);
            l.accept(answer(g + "#1", 0), 0);
        }
        l.accept(answer("g2-t2#0", 3), 0);
        assertNull(new GroupLedger(TASKS, 2, 8, 2, 1, 0).takeBatch(0));
        l.accept(answer("g2-t2#1", 3), 0);
        GroupLedger.Batch b = l.takeBatch(3);
        assertNull(b, "at version 3 the groups sampled at 0 are 3 behind (max 1): dropped, one fresh group is not a batch");
        assertEquals(1, l.readyGroups());
        l.accept(answer("g3-t0#0", 2), 0);
        l.accept(answer("g3-t0#1", 3), 0);
        assertEquals(2, l.resumeCursor(), "g2 (launched at 2) is complete but not yet trained on: a resume redoes it");
        b = l.takeBatch(3);
        assertEquals(4, l.resumeCursor(), "all handed over or dropped: a resume goes on after them");
        assertEquals(2, b.groups().size());
        assertEquals(2, b.staleDropped());
        assertEquals(1, GroupLedger.staleness(b.groups().get(1), 3), "the oldest turn decides");
    }

    static Trajectory scored(String episodeId, double reward) {
        Trajectory t = answer(episodeId, 0);
        return new Trajectory(t.episodeId(), t.groupId(), t.taskId(), t.prompt(), t.turns(), t.finalAnswer(), t.stopReason(), t.error(),
                t.stats(), new RewardBreakdown(java.util.Map.of(), reward));
    }

    private static void group(GroupLedger l, String groupId, double... rewards) {
        for (int k = 0; k < rewards.length; k++) assertTrue(l.accept(scored(groupId + "#" + k, rewards[k]), 0).taken());
    }

    @Test
    void dynamicSamplingDropsGroupsWhoseRewardsAreAllEqualUntilABatchIsInformative() {
        GroupLedger l = new GroupLedger(TASKS, 2, 8, 2, 1, 0, new GroupLedger.DynamicSampling(true, 0));
        l.launch(Integer.MAX_VALUE, 0); // g0..g3
        group(l, "g0-t0", 1, 0);
        group(l, "g1-t1", 0, 0); // teaches nothing
        group(l, "g2-t2", 1, 1); // neither
        assertEquals(1, l.readyGroups(), "only the group with a spread is ready");
        assertNull(l.takeBatch(0), "one informative group is not a batch of two: more are sampled");
        group(l, "g3-t0", 0.2, 0.7);
        GroupLedger.Batch b = l.takeBatch(0);
        assertEquals(List.of("g0-t0", "g3-t0"), b.groups().stream().map(g -> g.get(0).groupId()).toList());
        assertEquals(2, b.uninformativeDropped());
        assertEquals(4, l.resumeCursor(), "the dropped groups' tasks were sampled: a resume does not redo them");

        GroupLedger off = new GroupLedger(TASKS, 2, 8, 2, 1, 0);
        off.launch(Integer.MAX_VALUE, 0);
        group(off, "g0-t0", 0, 0);
        group(off, "g1-t1", 1, 1);
        assertEquals(0, off.takeBatch(0).uninformativeDropped(), "without dynamic sampling every complete group goes");
    }

    @Test
    void pastTheCapABatchGoesWithWhatItHas() {
        // groups-per-step 2, max-num-gen-batches 2: at most 4 groups complete per batch.
        GroupLedger l = new GroupLedger(TASKS, 2, 8, 2, 1, 0, new GroupLedger.DynamicSampling(true, 2));
        l.launch(Integer.MAX_VALUE, 0);
        group(l, "g0-t0", 0, 0);
        group(l, "g1-t1", 1, 0);
        group(l, "g2-t2", 0, 0);
        assertNull(l.takeBatch(0), "3 of 4 groups sampled");
        group(l, "g3-t0", 1, 1);
        GroupLedger.Batch partial = l.takeBatch(0);
        assertEquals(1, partial.groups().size(), "the one informative group");
        assertEquals(3, partial.uninformativeDropped());

        // A policy that never varies: past the cap the last uninformative groups go (the learner drops and logs them).
        l.launch(Integer.MAX_VALUE, 0);
        group(l, "g4-t1", 0, 0);
        group(l, "g5-t2", 0, 0);
        group(l, "g6-t0", 0, 0);
        group(l, "g7-t1", 0, 0);
        GroupLedger.Batch none = l.takeBatch(0);
        assertEquals(List.of("g6-t0", "g7-t1"), none.groups().stream().map(g -> g.get(0).groupId()).toList());
        assertEquals(4, none.uninformativeDropped());
        assertThrows(IllegalArgumentException.class, () -> new GroupLedger.DynamicSampling(true, -1));
    }

    @Test
    void unansweredEpisodesAreOverdueOnceAndThenAgainAfterAnotherTimeout() {
        GroupLedger l = new GroupLedger(TASKS, 2, 2, 1, 1, 0);
        l.launch(1, 1000);
        l.accept(answer("g0-t0#0", 0), 0);
        assertTrue(l.overdue(1500, 1000).isEmpty());
        List<GroupLedger.Launch> late = l.overdue(2000, 1000);
        assertEquals(1, late.size());
        assertEquals("g0-t0#1", late.get(0).episodeId());
        assertTrue(l.overdue(2500, 1000).isEmpty(), "re-sent at 2000: not overdue again until 3000");
        assertEquals(1, l.overdue(3000, 1000).size());
    }

    /** The answer of an episode that failed under the policy: it never becomes its group's answer. */
    static Trajectory failed(String episodeId, InfraFailure cause) {
        return answer(episodeId, 0).failedBy(cause, "injected: " + cause.label());
    }

    @Test
    void anEpisodeThatFailedForItsInfrastructureRunsAgainUnderANewAttemptAndOnlyItsAnswerIsTrained() {
        GroupLedger l = new GroupLedger(TASKS, 2, 2, 1, 5, 0, GroupLedger.DynamicSampling.OFF, 2);
        l.launch(1, 0);
        assertTrue(l.accept(answer("g0-t0#0", 0), 0).taken());
        GroupLedger.Accepted first = l.accept(failed("g0-t0#1", InfraFailure.POLICY_UNAVAILABLE), 10);
        assertTrue(first.taken(), "a new answer: it is written down");
        assertEquals(InfraFailure.POLICY_UNAVAILABLE, first.infra());
        assertEquals(new GroupLedger.Launch("g0-t0#1-retry1", "g0-t0", TASKS.get(0)), first.again());
        assertFalse(first.dropped());
        assertNull(l.takeBatch(0), "the group is not complete: its failed episode is not its answer");
        assertEquals(List.of("g0-t0#1-retry1"), l.inflightIds(), "the new attempt is out, and counts against max-inflight");
        assertTrue(l.launch(1, 20).isEmpty());
        GroupLedger.Accepted second = l.accept(failed("g0-t0#1-retry1", InfraFailure.SCORER_FAILED), 30);
        assertEquals("g0-t0#1-retry2", second.again().episodeId());
        assertFalse(l.accept(failed("g0-t0#1", InfraFailure.CRASHED), 40).taken(), "a late copy of an attempt is ignored");
        assertTrue(l.accept(answer("g0-t0#1-retry2", 0), 50).taken());
        GroupLedger.Batch b = l.takeBatch(0);
        assertEquals(List.of("g0-t0#0", "g0-t0#1-retry2"), b.groups().get(0).stream().map(Trajectory::episodeId).toList());
        assertEquals(0, l.infraDropped());
    }

    @Test
    void aGroupWhoseEpisodeKeepsFailingIsDroppedWholeAndItsMatesCancelled() {
        GroupLedger l = new GroupLedger(TASKS, 3, 6, 1, 5, 0, GroupLedger.DynamicSampling.OFF, 1);
        l.launch(2, 0); // g0-t0 and g1-t1
        assertTrue(l.accept(answer("g0-t0#0", 0), 0).taken());
        assertEquals("g0-t0#1-retry1", l.accept(failed("g0-t0#1", InfraFailure.SANDBOX_UNAVAILABLE), 0).again().episodeId());
        GroupLedger.Accepted out = l.accept(failed("g0-t0#1-retry1", InfraFailure.SANDBOX_UNAVAILABLE), 0);
        assertTrue(out.taken());
        assertTrue(out.dropped(), "retries ran out");
        assertNull(out.again());
        assertEquals(List.of("g0-t0#2"), out.cancel(), "its mate still out is cancelled");
        assertEquals(1, l.infraDropped());
        assertFalse(l.accept(answer("g0-t0#2", 0), 0).taken(), "an answer of a dropped group is not taken");
        for (int k = 0; k < 3; k++) l.accept(answer("g1-t1#" + k, 0), 0);
        GroupLedger.Batch b = l.takeBatch(0);
        assertEquals(1, b.groups().size());
        assertEquals("g1-t1", b.groups().get(0).get(0).groupId(), "only the whole group is trained, never the dropped one's part");
        assertEquals(l.cursor(), l.resumeCursor(), "a dropped group is not waited for by a resume");
        for (Trajectory t : b.groups().get(0)) assertNull(t.infraFailure());
    }

    @Test
    void withoutRetriesTheFirstInfrastructureFailureDropsItsGroup() {
        GroupLedger l = new GroupLedger(TASKS, 2, 2, 1, 5, 0);
        l.launch(1, 0);
        GroupLedger.Accepted out = l.accept(Trajectory.notRun("g0-t0#0", "g0-t0", "t0", StopReason.CRASHED, "its actor failed"), 0);
        assertEquals(InfraFailure.CRASHED, out.infra(), "a crash is never the policy's answer");
        assertTrue(out.dropped());
        assertEquals(List.of("g0-t0#1"), out.cancel());
        assertEquals(0, l.inflight());
    }

    @Test
    void settingsThatCannotWorkAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new GroupLedger(List.of(), 2, 8, 1, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new GroupLedger(TASKS, 8, 4, 1, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new GroupLedger(TASKS, 1, 4, 1, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new GroupLedger(TASKS, 2, 4, 1, -1, 0));
        assertThrows(IllegalArgumentException.class, () -> new GroupLedger(TASKS, 2, 4, 1, 1, 0, GroupLedger.DynamicSampling.OFF, -1));
    }
}
