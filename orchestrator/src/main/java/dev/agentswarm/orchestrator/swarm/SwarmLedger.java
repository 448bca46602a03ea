package dev.agentswarm.orchestrator.swarm;

import dev.agentswarm.core.CborSerializable;
import dev.agentswarm.core.protocol.EpisodeHistory;
import dev.agentswarm.orchestrator.swarm.SwarmEvent.AttemptEnded;
import dev.agentswarm.orchestrator.swarm.SwarmEvent.AttemptStarted;
import dev.agentswarm.orchestrator.swarm.SwarmEvent.BudgetExhausted;
import dev.agentswarm.orchestrator.swarm.SwarmEvent.RoundEnded;
import dev.agentswarm.orchestrator.swarm.SwarmEvent.RoundPlanned;
import dev.agentswarm.orchestrator.swarm.SwarmEvent.RoundStopped;
import dev.agentswarm.orchestrator.swarm.SwarmEvent.StepRecorded;
import dev.agentswarm.orchestrator.swarm.SwarmEvent.SwarmEnded;
import dev.agentswarm.orchestrator.swarm.SwarmEvent.SwarmStarted;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An orchestrator's state as its journal tells it: the rounds planned and each sub-task's status, the
 * attempts running, the budgets spent, and how the swarm ended. It changes only by {@link #apply}, the
 * same for a live orchestrator as for one recovering from its journal, so recovery rebuilds exactly
 * what was there. An event that cannot follow the state (a journal out of order, or another swarm's)
 * is refused with what and where, never half applied.
 *
 * <p>Its whole state can be taken as a {@link Snapshot} and restored from one, so that a journal can be
 * recovered from its latest snapshot and the events after it: the restored ledger equals the one that
 * applied every event ({@link #view()} compares them).
 */
public final class SwarmLedger {

    /** A running attempt of a sub-task, by its episode id. */
    public record Attempt(int round, String subTaskId, String agent, int attempt, String episodeId, boolean onSwarmClock) {}

    /** A planned round: its sub-tasks' states, the orchestrator's turn that planned it, each sub-task's agent path. */
    public record Round(RoundState state, int turn, Map<String, String> agents) {}

    /** A comparable picture of the whole state, for tests and for checking a recovery. */
    public record View(List<RoundView> rounds, Integer currentRound, Map<String, Attempt> running, Set<String> usedAgents,
                       Map<String, List<String>> trajectories, int subAgents, long turns, long tokens, String exhausted,
                       String exhaustedDetail, SwarmEnded ended, long events, SwarmStarted started,
                       Map<String, List<EpisodeHistory.Step>> steps) {}

    public record RoundView(int round, int turn, Map<String, String> agents, Map<String, RoundState.Status> statuses,
                            String stoppedBecause) {}

    /**
     * The ledger's whole state, as a journal stores it (Jackson CBOR, with {@link JournalFormat}'s version):
     * each round with its plan and sub-task statuses, whether the last round is still open, the attempts
     * running in the order they started, the recorded steps of the episodes still running, and the counts.
     */
    public record Snapshot(List<RoundSnapshot> rounds, boolean lastRoundOpen, List<Attempt> running, List<String> usedAgents,
                           Map<String, List<String>> trajectories, int subAgents, long turns, long tokens, String exhausted,
                           String exhaustedDetail, SwarmEnded ended, long events, SwarmStarted started,
                           Map<String, List<EpisodeHistory.Step>> steps) implements CborSerializable {
        public Snapshot {
            rounds = List.copyOf(rounds);
            running = List.copyOf(running);
            usedAgents = List.copyOf(usedAgents);
        }
    }

    /** One round in a {@link Snapshot}. */
    public record RoundSnapshot(int round, int turn, Plan plan, Map<String, String> agents, Map<String, RoundState.Status> statuses,
                                String stoppedBecause) {}

    private final List<Round> rounds = new ArrayList<>();
    private Round current;
    private final Map<String, Attempt> running = new LinkedHashMap<>();
    private final Set<String> usedAgents = new HashSet<>();
    private final Map<String, List<String>> trajectories = new LinkedHashMap<>();
    private int subAgents;
    private long turns;
    private long tokens;
    private String exhausted;
    private String exhaustedDetail;
    private SwarmEnded ended;
    private long events;
    private SwarmStarted started;
    /** Recorded steps of the episodes still running (the orchestrator's own among them), by episode id. */
    private final Map<String, List<EpisodeHistory.Step>> steps = new LinkedHashMap<>();

    /** A ledger rebuilt from a journal's events, in order. */
    public static SwarmLedger replay(Iterable<? extends SwarmEvent> journal) {
        SwarmLedger ledger = new SwarmLedger();
        for (SwarmEvent e : journal) ledger.apply(e);
        return ledger;
    }

    /** This ledger's state, to store: later changes to the ledger do not change it. */
    public Snapshot snapshot() {
        List<RoundSnapshot> rs = new ArrayList<>();
        for (Round r : rounds) {
            rs.add(new RoundSnapshot(r.state().round(), r.turn(), r.state().plan(), r.agents(), r.state().statuses(),
                    r.state().stoppedBecause()));
        }
        Map<String, List<String>> refs = new LinkedHashMap<>();
        trajectories.forEach((k, v) -> refs.put(k, List.copyOf(v)));
        return new Snapshot(rs, current != null, List.copyOf(running.values()), List.copyOf(usedAgents), refs, subAgents, turns,
                tokens, exhausted, exhaustedDetail, ended, events, started, stepsCopy());
    }

    /**
     * The ledger a snapshot was taken of; the events after it apply as they did to that one.
     * @throws IllegalArgumentException when the snapshot does not hold together (a round's statuses are
     *     not its plan's, a running attempt of a round that is not there)
     */
    public static SwarmLedger restore(Snapshot s) {
        SwarmLedger ledger = new SwarmLedger();
        for (RoundSnapshot r : s.rounds()) {
            if (r.round() != ledger.rounds.size() + 1) {
                throw new IllegalArgumentException("the snapshot's round " + r.round() + " follows " + ledger.rounds.size() + " rounds");
            }
            ledger.rounds.add(new Round(RoundState.restore(r.round(), r.plan(), r.statuses(), r.stoppedBecause()), r.turn(),
                    Map.copyOf(r.agents())));
        }
        if (s.lastRoundOpen()) {
            if (ledger.rounds.isEmpty()) throw new IllegalArgumentException("the snapshot has an open round but no rounds");
            ledger.current = ledger.rounds.get(ledger.rounds.size() - 1);
        }
        for (Attempt a : s.running()) {
            if (a.round() < 1 || a.round() > ledger.rounds.size()) {
                throw new IllegalArgumentException("the snapshot's attempt " + a.episodeId() + " belongs to round " + a.round()
                        + ", which it does not have");
            }
            ledger.running.put(a.episodeId(), a);
        }
        ledger.usedAgents.addAll(s.usedAgents());
        s.trajectories().forEach((k, v) -> ledger.trajectories.put(k, new ArrayList<>(v)));
        ledger.subAgents = s.subAgents();
        ledger.turns = s.turns();
        ledger.tokens = s.tokens();
        ledger.exhausted = s.exhausted();
        ledger.exhaustedDetail = s.exhaustedDetail();
        ledger.ended = s.ended();
        ledger.events = s.events();
        ledger.started = s.started();
        s.steps().forEach((k, v) -> ledger.steps.put(k, new ArrayList<>(v)));
        return ledger;
    }

    /** A ledger of its own in the same state (a snapshot's worth of copying). */
    public SwarmLedger copy() {
        return restore(snapshot());
    }

    /** Thrown for an event that cannot follow the ledger's state; the state is unchanged. */
    public static final class Refused extends IllegalStateException {
        Refused(String message) {
            super(message);
        }
    }

    /** Applies one event; returns this. @throws Refused when the event cannot follow this state */
    public SwarmLedger apply(SwarmEvent event) {
        try {
            applyChecked(event);
        } catch (Refused r) {
            throw r;
        } catch (IllegalStateException | IllegalArgumentException e) { // a round's own check, made before it changes anything
            refuse(event, e.getMessage());
        }
        events++;
        return this;
    }

    private void applyChecked(SwarmEvent event) {
        if (ended != null) refuse(event, "the swarm has ended");
        if (event instanceof SwarmStarted e) {
            if (events > 0) refuse(e, "a swarm starts once, with its first event");
            started = e;
        } else if (event instanceof StepRecorded e) {
            List<EpisodeHistory.Step> recorded = steps.computeIfAbsent(e.episodeId(), k -> new ArrayList<>());
            if (e.turn() < 1 || e.turn() > recorded.size() + 1) {
                if (recorded.isEmpty()) steps.remove(e.episodeId());
                refuse(e, "turn " + e.turn() + " of " + e.episodeId() + " after " + recorded.size() + " recorded turns");
            }
            if (e.turn() == recorded.size() + 1) recorded.add(e.step());
            else recorded.set(e.turn() - 1, e.step()); // the same turn with its tool results
        } else if (event instanceof RoundPlanned e) {
            if (current != null) refuse(e, "round " + current.state().round() + " has not ended");
            if (e.round() != rounds.size() + 1) refuse(e, "the next round is " + (rounds.size() + 1));
            for (SubTask t : e.plan().subTasks()) {
                if (!e.agents().containsKey(t.id())) refuse(e, "sub-task " + t.id() + " has no agent");
            }
            for (String agent : e.agents().values()) {
                if (usedAgents.contains(agent)) refuse(e, "agent " + agent + " was used in an earlier round");
            }
            current = new Round(new RoundState(e.round(), e.plan()), e.turn(), Map.copyOf(e.agents()));
            rounds.add(current);
            usedAgents.addAll(e.agents().values());
            subAgents += e.plan().subTasks().size();
        } else if (event instanceof AttemptStarted e) {
            RoundState state = currentRound(e, e.round());
            if (running.containsKey(e.episodeId())) refuse(e, "episode " + e.episodeId() + " is already running");
            RoundState.Status s = state.status(e.subTaskId());
            if (s == null) refuse(e, "round " + e.round() + " has no sub-task " + e.subTaskId());
            if (e.attempt() == 1) {
                state.started(e.subTaskId());
            } else if (s.state() != RoundState.State.RUNNING || s.attempts() != e.attempt()) {
                refuse(e, "attempt " + e.attempt() + " follows a retry of attempt " + (e.attempt() - 1) + "; the sub-task is "
                        + s.state() + " after " + s.attempts() + " attempts");
            }
            running.put(e.episodeId(), new Attempt(e.round(), e.subTaskId(), e.agent(), e.attempt(), e.episodeId(),
                    e.onSwarmClock()));
        } else if (event instanceof AttemptEnded e) {
            Attempt a = running.get(e.episodeId());
            if (a == null) refuse(e, "episode " + e.episodeId() + " is not running");
            RoundState state = roundOf(a);
            switch (e.outcome()) {
                case DONE -> state.done(a.subTaskId(), e.text(), e.steps(), e.tokens());
                case FAILED -> state.failed(a.subTaskId(), e.text(), e.steps(), e.tokens());
                case CANCELLED -> state.cancelled(a.subTaskId(), e.text(), e.steps(), e.tokens());
                case RETRIED -> state.retry(a.subTaskId(), e.steps(), e.tokens());
            }
            running.remove(e.episodeId());
            steps.remove(e.episodeId());
            turns += e.turns();
            tokens += e.tokens();
            if (e.trajectoryRef() != null) trajectories.computeIfAbsent(a.agent(), k -> new ArrayList<>()).add(e.trajectoryRef());
        } else if (event instanceof BudgetExhausted e) {
            if (exhausted != null) refuse(e, "budget " + exhausted + " was already spent");
            exhausted = e.budget();
            exhaustedDetail = e.detail();
        } else if (event instanceof RoundStopped e) {
            currentRound(e, e.round()).stop(e.why());
        } else if (event instanceof RoundEnded e) {
            RoundState state = currentRound(e, e.round());
            for (Attempt a : running.values()) {
                if (a.round() == e.round()) refuse(e, "episode " + a.episodeId() + " of the round is still running");
            }
            if (!state.over() && !(state.joinReached() && !state.anyRunning()) && exhausted == null
                    && state.stoppedBecause() == null) {
                refuse(e, "the round is neither over nor joined nor stopped");
            }
            current = null;
        } else if (event instanceof SwarmEnded e) {
            if (current != null) refuse(e, "round " + current.state().round() + " has not ended");
            ended = e;
            steps.clear();
            turns += e.turns();
            tokens += e.tokens();
        } else {
            refuse(event, "unknown event");
        }
    }

    private RoundState currentRound(SwarmEvent e, int round) {
        if (current == null || current.state().round() != round) {
            refuse(e, "round " + round + " is not the current round (" + (current == null ? "none" : current.state().round()) + ")");
        }
        return current.state();
    }

    private RoundState roundOf(Attempt a) {
        return rounds.get(a.round() - 1).state();
    }

    private void refuse(SwarmEvent e, String why) {
        throw new Refused("journal event " + (events + 1) + " (" + e.getClass().getSimpleName() + ") cannot follow: "
                + why);
    }

    public List<Round> rounds() {
        return Collections.unmodifiableList(rounds);
    }

    /** The round running now, or null between rounds. */
    public Round current() {
        return current;
    }

    public Map<String, Attempt> running() {
        return Collections.unmodifiableMap(running);
    }

    public boolean agentUsed(String agent) {
        return usedAgents.contains(agent);
    }

    /** Trajectory references of each agent's attempts, in order. */
    public Map<String, List<String>> trajectories() {
        return Collections.unmodifiableMap(trajectories);
    }

    public int subAgents() {
        return subAgents;
    }

    public long turns() {
        return turns;
    }

    public long tokens() {
        return tokens;
    }

    public String exhausted() {
        return exhausted;
    }

    public String exhaustedDetail() {
        return exhaustedDetail;
    }

    /** How the swarm ended, or null while it runs. */
    public SwarmEnded ended() {
        return ended;
    }

    /** The swarm's task, or null for a journal that has not started. */
    public SwarmStarted started() {
        return started;
    }

    /** What running episode {@code episodeId} has done, to resume it after. */
    public EpisodeHistory history(String episodeId) {
        return new EpisodeHistory(steps.getOrDefault(episodeId, List.of()));
    }

    /** Events applied so far. */
    public long events() {
        return events;
    }

    private Map<String, List<EpisodeHistory.Step>> stepsCopy() {
        Map<String, List<EpisodeHistory.Step>> out = new LinkedHashMap<>();
        steps.forEach((k, v) -> out.put(k, List.copyOf(v)));
        return out;
    }

    public View view() {
        List<RoundView> rs = new ArrayList<>();
        for (Round r : rounds) {
            rs.add(new RoundView(r.state().round(), r.turn(), r.agents(), r.state().statuses(), r.state().stoppedBecause()));
        }
        Map<String, List<String>> refs = new LinkedHashMap<>();
        trajectories.forEach((k, v) -> refs.put(k, List.copyOf(v)));
        return new View(rs, current == null ? null : current.state().round(), new LinkedHashMap<>(running), Set.copyOf(usedAgents),
                refs, subAgents, turns, tokens, exhausted, exhaustedDetail, ended, events, started, stepsCopy());
    }
}
