package dev.agentswarm.orchestrator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.FinishReason;
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
        assertTrue(l.accept(answer("g0-t2#0", 0)));
        assertFalse(l.accept(answer("g0-t2#0", 0)), "an id is answered at most once");
        assertFalse(l.accept(answer("nobody#1", 0)));
        assertEquals(7, l.inflight());
        assertTrue(l.launch(Integer.MAX_VALUE, 0).isEmpty(), "7 + 4 > 10");
    }

    @Test
    void completeGroupsMakeBatchesAndStaleOnesAreDropped() {
        GroupLedger l = new GroupLedger(TASKS, 2, 8, 2, 1, 0);
        l.launch(Integer.MAX_VALUE, 0); // g0..g3
        for (String g : List.of("g0-t0", "g1-t1")) {
            l.accept(answer(g + "#0", 0));
            l.accept(answer(g + "#1", 0));
        }
        l.accept(answer("g2-t2#0", 3));
        assertNull(new GroupLedger(TASKS, 2, 8, 2, 1, 0).takeBatch(0));
        l.accept(answer("g2-t2#1", 3));
        GroupLedger.Batch b = l.takeBatch(3);
        assertNull(b, "at version 3 the groups sampled at 0 are 3 behind (max 1): dropped, one fresh group is not a batch");
        assertEquals(1, l.readyGroups());
        l.accept(answer("g3-t0#0", 2));
        l.accept(answer("g3-t0#1", 3));
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
        for (int k = 0; k < rewards.length; k++) assertTrue(l.accept(scored(groupId + "#" + k, rewards[k])));
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
        l.accept(answer("g0-t0#0", 0));
        assertTrue(l.overdue(1500, 1000).isEmpty());
        List<GroupLedger.Launch> late = l.overdue(2000, 1000);
        assertEquals(1, late.size());
        assertEquals("g0-t0#1", late.get(0).episodeId());
        assertTrue(l.overdue(2500, 1000).isEmpty(), "re-sent at 2000: not overdue again until 3000");
        assertEquals(1, l.overdue(3000, 1000).size());
    }

    @Test
    void settingsThatCannotWorkAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new GroupLedger(List.of(), 2, 8, 1, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new GroupLedger(TASKS, 8, 4, 1, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new GroupLedger(TASKS, 1, 4, 1, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new GroupLedger(TASKS, 2, 4, 1, -1, 0));
    }
}
