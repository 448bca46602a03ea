package dev.agentswarm.orchestrator.swarm;

import dev.agentswarm.core.CborSerializable;
import dev.agentswarm.core.protocol.EpisodeHistory;
import dev.agentswarm.core.protocol.StopReason;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What an orchestrator journals, in the order it happened: enough for {@link SwarmLedger} to rebuild its
 * state exactly after a crash, so that nothing planned is planned again and no finished sub-agent runs
 * again. Events carry answers and counts, never trajectories: those stay in the run's trajectory files,
 * named by {@link AttemptEnded#trajectoryRef()}.
 */
public sealed interface SwarmEvent extends CborSerializable {

    /** The swarm's first event: its task, as the orchestrator was given it. */
    record SwarmStarted(String taskId, String prompt) implements SwarmEvent {}

    /**
     * An episode of the swarm (the orchestrator's own or a sub-agent's) recorded policy turn {@code turn}:
     * its completion, and its tool results once they are in (null before). It resumes after these.
     */
    record StepRecorded(String episodeId, int turn, EpisodeHistory.Step step) implements SwarmEvent {}

    /** A {@code spawn_subagents} call accepted as round {@code round}, made at the orchestrator's turn {@code turn}. */
    record RoundPlanned(int round, int turn, Plan plan, Map<String, String> agents) implements SwarmEvent {
        public RoundPlanned {
            agents = Map.copyOf(agents);
        }
    }

    /** Attempt {@code attempt} of a sub-task of round {@code round} started as episode {@code episodeId}. */
    record AttemptStarted(int round, String subTaskId, String agent, int attempt, String episodeId, boolean onSwarmClock)
            implements SwarmEvent {}

    /** How an attempt ended, as the round counts it. */
    enum Outcome { DONE, FAILED, CANCELLED, RETRIED }

    /**
     * An attempt ended: its answer (DONE) or why not (the others), the critical steps and tokens it
     * spent, the policy turns it used, and where its trajectory was written (null when none was).
     */
    record AttemptEnded(String episodeId, Outcome outcome, String text, long steps, long tokens, long turns,
                        String trajectoryRef) implements SwarmEvent {}

    /** A budget ran out: running sub-agents were cancelled, and no more start. */
    record BudgetExhausted(String budget, String detail) implements SwarmEvent {}

    /** Nothing more starts in the round (join reached, budget spent, orchestrator gone); pending sub-tasks are skipped. */
    record RoundStopped(int round, String why) implements SwarmEvent {}

    /** The round's observation went back to the orchestrator's episode. */
    record RoundEnded(int round) implements SwarmEvent {}

    /** The orchestrator's own episode ended: the swarm's answer (null without one) and why it stopped. */
    record SwarmEnded(String answer, StopReason stopReason, String error, long turns, long tokens) implements SwarmEvent {}

    /**
     * Events the journal wrote together, as one entry (one database row): what the orchestrator sent in one
     * append. An entry per event cost the database an insert and its index updates each, and most of a
     * swarm's events are turn records. Not a state change of its own: the journal and whoever reads its
     * entries open it ({@link #unpacked}); a ledger refuses it.
     */
    record Batch(List<SwarmEvent> events) implements SwarmEvent {
        public Batch {
            events = List.copyOf(events);
            for (SwarmEvent e : events) {
                if (e instanceof Batch) throw new IllegalArgumentException("a batch of events inside another");
            }
        }

        /** The events of a journal's entries, in order: batches opened, single events (older journals) as they are. */
        public static List<SwarmEvent> unpacked(Iterable<?> entries) {
            List<SwarmEvent> out = new ArrayList<>();
            for (Object entry : entries) {
                if (entry instanceof Batch b) out.addAll(b.events());
                else if (entry instanceof SwarmEvent e) out.add(e);
                else throw new IllegalStateException("not a swarm journal entry: " + (entry == null ? "null" : entry.getClass().getName()));
            }
            return out;
        }
    }
}
