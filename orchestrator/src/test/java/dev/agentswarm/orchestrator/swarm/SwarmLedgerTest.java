package dev.agentswarm.orchestrator.swarm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.EpisodeHistory;
import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.ToolStatus;
import dev.agentswarm.orchestrator.swarm.RoundState.State;
import dev.agentswarm.orchestrator.swarm.SwarmEvent.AttemptEnded;
import dev.agentswarm.orchestrator.swarm.SwarmEvent.AttemptStarted;
import dev.agentswarm.orchestrator.swarm.SwarmEvent.BudgetExhausted;
import dev.agentswarm.orchestrator.swarm.SwarmEvent.Outcome;
import dev.agentswarm.orchestrator.swarm.SwarmEvent.RoundEnded;
import dev.agentswarm.orchestrator.swarm.SwarmEvent.RoundPlanned;
import dev.agentswarm.orchestrator.swarm.SwarmEvent.RoundStopped;
import dev.agentswarm.orchestrator.swarm.SwarmEvent.SwarmEnded;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.junit.jupiter.api.Test;

class SwarmLedgerTest {

    private static SubTask task(String id, String... dependsOn) {
        return new SubTask(id, "find " + id, SubAgentMode.GENERAL, List.of("search"), List.of(dependsOn));
    }

    /** Round 1: a and b in parallel, c needs both; b fails once and is retried. Round 2: x, stopped by the turns budget. */
    static List<SwarmEvent> journal() {
        Plan one = new Plan(List.of(task("a"), task("b"), task("c", "a", "b")), List.of(List.of("a", "b"), List.of("c")));
        Plan two = new Plan(List.of(task("x"), task("y")), List.of(List.of("x", "y")), new Join(Join.Kind.FIRST_K, 1));
        return List.of(
                new RoundPlanned(1, 2, one, Map.of("a", "root/a", "b", "root/b", "c", "root/c")),
                new AttemptStarted(1, "a", "root/a", 1, "run:root/a", false),
                new AttemptStarted(1, "b", "root/b", 1, "run:root/b", false),
                new AttemptEnded("run:root/b", Outcome.RETRIED, "crashed: the node died", 1, 10, 1, "trajectories.jsonl#3"),
                new AttemptStarted(1, "b", "root/b", 2, "run:root/b#2", false),
                new AttemptEnded("run:root/a", Outcome.DONE, "Paris", 3, 40, 3, "trajectories.jsonl#4"),
                new AttemptEnded("run:root/b#2", Outcome.DONE, "1889", 2, 25, 2, "trajectories.jsonl#5"),
                new AttemptStarted(1, "c", "root/c", 1, "run:root/c", false),
                new AttemptEnded("run:root/c", Outcome.DONE, "Eiffel Tower, Paris, 1889", 4, 60, 4, null),
                new RoundEnded(1),
                new RoundPlanned(2, 5, two, Map.of("x", "root/x", "y", "root/y")),
                new AttemptStarted(2, "x", "root/x", 1, "run:root/x", false),
                new BudgetExhausted("turns", "40 of 40 policy turns used"),
                new RoundStopped(2, "turns budget spent"),
                new AttemptEnded("run:root/x", Outcome.CANCELLED, "turns budget spent", 1, 5, 1, "trajectories.jsonl#7"),
                new RoundEnded(2),
                new SwarmEnded("The Eiffel Tower, 1889", StopReason.FINAL_ANSWER, null, 6, 90));
    }

    /**
     * {@link #journal()} as an orchestrator writes it: the swarm's start and the recorded turns of the
     * orchestrator's episode and of sub-agents a and b (a's first turn before and after its tool results).
     */
    static List<SwarmEvent> journalWithSteps() {
        Completion said = new Completion("<tool_call>…</tool_call>", List.of(), new int[] {4, 2}, new float[] {-0.1f, -0.2f},
                FinishReason.TOOL_CALLS, 3, 12, 2);
        ToolResult read = new ToolResult("call_0", "search", "Paris", ToolStatus.OK, false, 1000);
        List<SwarmEvent> out = new ArrayList<>(journal());
        out.add(3, new SwarmEvent.StepRecorded("run:root/b", 1, new EpisodeHistory.Step(said, null)));
        out.add(2, new SwarmEvent.StepRecorded("run:root/a", 2, new EpisodeHistory.Step(said, null)));
        out.add(2, new SwarmEvent.StepRecorded("run:root/a", 1, new EpisodeHistory.Step(said, List.of(read))));
        out.add(2, new SwarmEvent.StepRecorded("run:root/a", 1, new EpisodeHistory.Step(said, null)));
        out.add(0, new SwarmEvent.StepRecorded("run:root", 1, new EpisodeHistory.Step(said, List.of(read))));
        out.add(0, new SwarmEvent.SwarmStarted("t-1", "Which tower, and when?"));
        return out;
    }

    /** {@code value} written and read back by the actor system's serializer for it, as a journal stores it. */
    static Object throughTheSerializer(Serialization serialization, Object value) {
        Serializer s = serialization.findSerializerFor(value);
        byte[] bytes = serialization.serialize(value).get();
        return serialization.deserialize(bytes, s.identifier(), org.apache.pekko.serialization.Serializers.manifestFor(s, value)).get();
    }

    @Test
    void aSnapshotAtAnyEventRestoresTheLedgerAndTheEventsAfterItApplyAsToTheFullReplay() {
        List<SwarmEvent> all = journalWithSteps();
        ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "ledger-snapshots");
        try {
            Serialization serialization = SerializationExtension.get(system.classicSystem());
            // Snapshots taken from a live ledger as it goes: later events must not change them.
            SwarmLedger live = new SwarmLedger();
            List<SwarmLedger.Snapshot> taken = new ArrayList<>(List.of(live.snapshot()));
            for (SwarmEvent e : all) taken.add(live.apply(e).snapshot());
            for (int cut = 0; cut <= all.size(); cut++) {
                SwarmLedger.Snapshot stored = (SwarmLedger.Snapshot) throughTheSerializer(serialization, taken.get(cut));
                SwarmLedger restored = SwarmLedger.restore(stored);
                assertEquals(SwarmLedger.replay(all.subList(0, cut)).view(), restored.view(), "restored at event " + cut);
                for (int k = cut; k < all.size(); k++) {
                    restored.apply(all.get(k));
                    assertEquals(SwarmLedger.replay(all.subList(0, k + 1)).view(), restored.view(),
                            "snapshot at " + cut + ", then events to " + (k + 1));
                }
            }
        } finally {
            system.terminate();
        }
    }

    @Test
    void aRestoredLedgerRefusesWhatTheReplayedOneRefusesAndDecidesTheSame() {
        List<SwarmEvent> all = journalWithSteps();
        int mid = 8; // a (two turns recorded) and b running; c waits for both
        SwarmLedger restored = SwarmLedger.restore(SwarmLedger.replay(all.subList(0, mid)).snapshot());
        SwarmLedger replayed = SwarmLedger.replay(all.subList(0, mid));
        assertEquals(replayed.current().state().ready(10), restored.current().state().ready(10));
        assertEquals(replayed.history("run:root").steps(), restored.history("run:root").steps());
        SwarmEvent early = new AttemptStarted(1, "c", "root/c", 1, "run:root/c", false);
        String refusedReplayed = assertThrows(SwarmLedger.Refused.class, () -> replayed.apply(early)).getMessage();
        String refusedRestored = assertThrows(SwarmLedger.Refused.class, () -> restored.apply(early)).getMessage();
        assertEquals(refusedReplayed, refusedRestored);
        assertEquals(replayed.view(), restored.view());
    }

    @Test
    void aSnapshotThatDoesNotHoldTogetherIsRefusedByName() {
        SwarmLedger.Snapshot s = SwarmLedger.replay(journal().subList(0, 3)).snapshot();
        SwarmLedger.RoundSnapshot r = s.rounds().get(0);
        Map<String, RoundState.Status> fewer = new java.util.LinkedHashMap<>(r.statuses());
        fewer.remove("c");
        SwarmLedger.Snapshot broken = new SwarmLedger.Snapshot(List.of(new SwarmLedger.RoundSnapshot(1, r.turn(), r.plan(), r.agents(),
                fewer, null)), true, s.running(), s.usedAgents(), s.trajectories(), s.subAgents(), s.turns(), s.tokens(), null, null,
                null, s.events(), null, s.steps());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SwarmLedger.restore(broken));
        assertTrue(e.getMessage().contains("round 1 has sub-tasks [a, b, c] but statuses for [a, b]"), e.getMessage());
        SwarmLedger.Snapshot orphan = new SwarmLedger.Snapshot(List.of(), false, s.running(), s.usedAgents(), s.trajectories(),
                s.subAgents(), s.turns(), s.tokens(), null, null, null, s.events(), null, s.steps());
        e = assertThrows(IllegalArgumentException.class, () -> SwarmLedger.restore(orphan));
        assertTrue(e.getMessage().contains("attempt run:root/a belongs to round 1"), e.getMessage());
    }

    @Test
    void theJournalRebuildsEachSubTasksStateTheBudgetsAndTheEnd() {
        SwarmLedger l = SwarmLedger.replay(journal());
        assertEquals(2, l.rounds().size());
        assertNull(l.current());
        assertTrue(l.running().isEmpty());
        Map<String, RoundState.Status> one = l.rounds().get(0).state().statuses();
        assertEquals(new RoundState.Status(State.DONE, "Paris", null, 1, 3, 40), one.get("a"));
        assertEquals(new RoundState.Status(State.DONE, "1889", null, 2, 3, 35), one.get("b"), "two attempts, both counted");
        assertEquals(State.DONE, one.get("c").state());
        Map<String, RoundState.Status> two = l.rounds().get(1).state().statuses();
        assertEquals(State.CANCELLED, two.get("x").state());
        assertEquals(new RoundState.Status(State.SKIPPED, null, "turns budget spent", 0, 0, 0), two.get("y"));
        assertEquals(5, l.subAgents());
        assertEquals(1 + 3 + 2 + 4 + 1 + 6, l.turns());
        assertEquals(10 + 40 + 25 + 60 + 5 + 90, l.tokens());
        assertEquals("turns", l.exhausted());
        assertEquals(List.of("trajectories.jsonl#3", "trajectories.jsonl#5"), l.trajectories().get("root/b"));
        assertEquals("The Eiffel Tower, 1889", l.ended().answer());
        assertTrue(l.agentUsed("root/y"));
        assertEquals(journal().size(), l.events());
    }

    @Test
    void everyPrefixReplaysToTheSameStateAsTheLedgerThatLivedIt() {
        List<SwarmEvent> all = journal();
        SwarmLedger live = new SwarmLedger();
        for (int k = 0; k < all.size(); k++) {
            live.apply(all.get(k));
            SwarmLedger replayed = SwarmLedger.replay(all.subList(0, k + 1));
            assertEquals(live.view(), replayed.view(), "after event " + (k + 1) + " (" + all.get(k) + ")");
        }
    }

    @Test
    void aRecoveryInTheMiddleOfARoundKnowsWhatRunsAndWhatIsDone() {
        SwarmLedger l = SwarmLedger.replay(journal().subList(0, 6)); // a done, b's second attempt running
        assertEquals(1, l.current().state().round());
        assertEquals(List.of("run:root/b#2"), List.copyOf(l.running().keySet()));
        assertEquals(State.DONE, l.current().state().status("a").state());
        assertEquals(List.of(), l.current().state().ready(10), "c waits for b; nothing else may start");
        assertEquals(2, l.running().get("run:root/b#2").attempt());
    }

    @Test
    void eventsThatCannotFollowAreRefusedWithTheirPlaceAndChangeNothing() {
        List<SwarmEvent> all = journal();
        SwarmLedger l = SwarmLedger.replay(all.subList(0, 3));
        SwarmLedger.View before = l.view();
        List<SwarmEvent> wrong = new ArrayList<>(List.of(
                new RoundPlanned(2, 3, new Plan(List.of(task("z")), List.of(List.of("z"))), Map.of("z", "root/z")),
                new AttemptStarted(1, "a", "root/a", 1, "run:root/a", false),
                new AttemptStarted(1, "c", "root/c", 1, "run:root/c", false),
                new AttemptStarted(1, "nope", "root/nope", 1, "run:root/nope", false),
                new AttemptStarted(1, "b", "root/b", 2, "run:root/b#2", false),
                new AttemptEnded("run:someone-else", Outcome.DONE, "x", 1, 1, 1, null),
                new RoundEnded(1),
                new SwarmEnded("early", StopReason.FINAL_ANSWER, null, 1, 1)));
        for (SwarmEvent e : wrong) {
            IllegalStateException x = assertThrows(IllegalStateException.class, () -> l.apply(e), e.toString());
            assertTrue(x.getMessage().startsWith("journal event 4 (" + e.getClass().getSimpleName() + ") cannot follow"), x.getMessage());
            assertEquals(before, l.view(), "unchanged after refusing " + e);
        }
        SwarmLedger ended = SwarmLedger.replay(all);
        IllegalStateException x = assertThrows(IllegalStateException.class, () -> ended.apply(all.get(1)));
        assertTrue(x.getMessage().contains("the swarm has ended"), x.getMessage());
    }

    @Test
    void aRoundMayEndOnlyOverJoinedOrStopped() {
        SwarmLedger l = SwarmLedger.replay(journal().subList(0, 12)); // round 2: x running, y pending
        assertThrows(IllegalStateException.class, () -> l.apply(new RoundEnded(2)), "x still runs");
        l.apply(new AttemptEnded("run:root/x", Outcome.DONE, "Gustave Eiffel", 2, 20, 2, null));
        l.apply(new RoundEnded(2)); // first_k(1) is reached with x's answer, though y never started
        assertNull(l.current());
    }

    @Test
    void stepsAreKeptForTheEpisodesStillRunningAndReplacedWhenTheirResultsCome() {
        SwarmLedger l = SwarmLedger.replay(journal().subList(0, 3)); // a and b running
        Completion said = new Completion("<tool_call>…</tool_call>", List.of(), new int[] {4, 2}, new float[] {-0.1f, -0.2f},
                FinishReason.TOOL_CALLS, 3, 12, 2);
        ToolResult read = new ToolResult("call_0", "search", "Paris", ToolStatus.OK, false, 1000);
        l.apply(new SwarmEvent.StepRecorded("run:root/a", 1, new EpisodeHistory.Step(said, null)));
        assertEquals(List.of(new EpisodeHistory.Step(said, null)), l.history("run:root/a").steps(), "in flight");
        l.apply(new SwarmEvent.StepRecorded("run:root/a", 1, new EpisodeHistory.Step(said, List.of(read))));
        assertEquals(List.of(new EpisodeHistory.Step(said, List.of(read))), l.history("run:root/a").steps(), "with its results");
        SwarmLedger.View before = l.view();
        assertThrows(SwarmLedger.Refused.class,
                () -> l.apply(new SwarmEvent.StepRecorded("run:root/a", 3, new EpisodeHistory.Step(said, null))), "turn 2 is missing");
        assertEquals(before, l.view());
        l.apply(new AttemptEnded("run:root/a", Outcome.DONE, "Paris", 2, 10, 2, null));
        assertTrue(l.history("run:root/a").isEmpty(), "an answered episode's steps are dropped");
        assertThrows(SwarmLedger.Refused.class, () -> l.apply(new SwarmEvent.SwarmStarted("t", "again")), "a swarm starts once");
    }

    @Test
    void everyEventRoundTripsThroughTheJournalsSerializer() {
        ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "ledger-cbor");
        try {
            Serialization serialization = SerializationExtension.get(system.classicSystem());
            for (SwarmEvent e : journal()) {
                Serializer s = serialization.findSerializerFor(e);
                assertEquals("SwarmEventSerializer", s.getClass().getSimpleName(), e.getClass().getSimpleName());
                byte[] bytes = serialization.serialize(e).get();
                assertEquals(e, serialization.deserialize(bytes, s.identifier(), e.getClass().getName()).get());
            }
        } finally {
            system.terminate();
        }
    }
}
