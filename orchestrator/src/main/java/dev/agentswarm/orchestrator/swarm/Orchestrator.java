package dev.agentswarm.orchestrator.swarm;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.protocol.EpisodeHistory;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.InfraFailure;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.SwarmProtocol;
import dev.agentswarm.core.protocol.SwarmProtocol.EpisodeProgress;
import dev.agentswarm.core.protocol.SwarmProtocol.SpawnOutcome;
import dev.agentswarm.core.protocol.SwarmProtocol.SpawnSubAgents;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.WorkerProtocol.CancelEpisode;
import dev.agentswarm.core.protocol.WorkerProtocol.RunEpisode;
import dev.agentswarm.orchestrator.WorkerRoute;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * One orchestrator of a swarm. Its own episode runs on the workers with the tools
 * {@code spawn_subagents} and {@code finish}; each {@code spawn_subagents} call comes here as a plan,
 * which is checked ({@link PlanCheck}) and run as a round: sub-agent episodes start on the workers as
 * soon as their dependencies have answered, get those answers, and the call returns the round's
 * observation when its {@link Join} is reached. A sub-task in mode {@code orchestrator} is a child
 * {@code Orchestrator} with a budget leased from this one's remainder.
 *
 * <p>Budgets (sub-agents, turns, tokens, parallelism, deadline) are counted live from the episodes'
 * progress: when one runs out, running sub-agents are cancelled and the orchestrator is told in the
 * observation. A sub-agent that crashes, fails its policy, runs out of time or is lost is retried up
 * to {@code retries} times, then reported failed, and whatever depends on it is skipped. The swarm
 * always finishes: with the orchestrator's answer, or with what it has and what is missing.
 */
public final class Orchestrator extends AbstractBehavior<Orchestrator.Command> {

    /** Local messages only: nested orchestrators are children on the same node; episodes speak {@link SwarmProtocol}. */
    public interface Command extends NoSerializationVerificationNeeded {}

    /** Stop everything, the orchestrator's own episode included, and reply with what there is. */
    public record Cancel(String reason) implements Command {}

    private record FromEpisode(SwarmProtocol.Command message) implements Command {}

    private record Answered(Trajectory trajectory) implements Command {}

    private record NestedDone(SwarmResult result) implements Command {}

    private record NestedStopped(String agent) implements Command {}

    /** Turns, tokens and sub-agents a nested orchestrator's subtree spent, reported up as they are spent. */
    private record ChildUsage(int subAgents, long turns, long tokens) implements Command {}

    private record Lost(String episodeId) implements Command {}

    private enum SubAgentDeadline implements Command { INSTANCE }

    private record FromJournal(SwarmJournal.Reply reply) implements Command {}

    private enum JournalStopped implements Command { INSTANCE }

    private enum ReopenJournal implements Command { INSTANCE }

    /** The write interval since the last journal write has passed: what accumulated goes now. */
    private enum WriteJournal implements Command { INSTANCE }

    /** Where this orchestrator sits in the tree and who hears from it. */
    public record Place(String runId, String agent, int depth, ActorRef<Command> parent) {
        public static Place root(String runId) {
            return new Place(runId, "root", 0, null);
        }
    }

    /** One run of a sub-task; {@code onSwarmClock} when the swarm's deadline, not the episode's own limit, bounds it. */
    private record Attempt(String episodeId, String agent, String subTaskId, int attempt, long startNanos, RoundState round,
                           boolean onSwarmClock) {}

    private record SpawnRound(RoundState state, int turnAtSpawn, ActorRef<SpawnOutcome> replyTo, Map<String, String> agents) {}

    private final SwarmSettings settings;
    private final SwarmBudget budget;
    private final Place place;
    private final Task task;
    private final WorkerRoute route;
    private final SwarmTrace trace;
    private final SwarmTraceEvents events;
    private final ActorRef<SwarmResult> replyTo;
    private final TimerScheduler<Command> timers;
    private final ActorRef<SwarmProtocol.Command> episodeLink;
    private final ActorRef<Trajectory> answers;
    private final ActorRef<SwarmResult> nestedAnswers;
    /** Where a durable swarm's sub-agent trajectories go; its events name them. */
    private final TrajectoryStore trajectoryStore;

    private final String ownEpisodeId;
    private final long startNanos = System.nanoTime();
    private final long deadlineAtNanos;
    private final long subAgentDeadlineAtNanos;

    private final Map<String, Attempt> running = new HashMap<>();
    private final Map<String, ActorRef<Command>> nested = new HashMap<>();
    /** The swarm's state as its journal tells it; every change goes through {@link #record}. */
    private final SwarmLedger ledger;
    /** The write-behind journal of a durable orchestrator, null otherwise. */
    private ActorRef<SwarmJournal.Command> journal;
    private final ActorRef<SwarmJournal.Reply> journalReplies;
    /** What the journal has not confirmed yet, and when the next batch may go. */
    private final JournalOutbox outbox;
    private boolean writeScheduled;
    /** A new swarm's journal is still recovering (see {@link #createNewDurable}): its first reply says whether it is empty. */
    private boolean journalOpening;
    /** A durable swarm's result, held until the journal has its last event. */
    private SwarmResult pendingResult;
    /** Episodes waiting for the journal to hold its first {@code events} events before they run a turn's calls. */
    private record AwaitingWrite(long events, ActorRef<SwarmProtocol.Recorded> replyTo, SwarmProtocol.Recorded reply) {}

    private final List<AwaitingWrite> awaitingWrite = new ArrayList<>();
    private final List<SpawnRound> rounds = new ArrayList<>();
    private final Map<String, List<Trajectory>> trajectories = new LinkedHashMap<>();
    private final Map<String, SwarmResult> nestedResults = new HashMap<>();
    private SpawnRound current;
    /** Budgets spent and which ran out first; {@link #spend} counts into it. */
    private final SwarmSpending spending;
    private long serialNanos;
    private boolean finished;
    private Trajectory own;

    public static Behavior<Command> create(SwarmSettings settings, Place place, Task task, WorkerRoute route, SwarmTrace trace,
                                           ActorRef<SwarmResult> replyTo) {
        return Behaviors.setup(ctx -> Behaviors.withTimers(timers ->
                new Orchestrator(ctx, timers, settings, place, task, route, trace, replyTo, new SwarmLedger(), null, null,
                        TrajectoryStore.NONE).start()));
    }

    /**
     * A durable orchestrator: its events go to its journal ({@link SwarmJournal}, persistence id
     * {@code swarm|RUN:AGENT}, on the actor system's journal plugin), and when that journal already holds
     * events it resumes from them instead of starting: sub-agents that finished are not run again, those
     * that were running resume after their recorded turns, the orchestrator's own episode too, and a round
     * that was planned is never planned again. Its nested orchestrators are durable too.
     */
    public static Behavior<Command> createDurable(SwarmSettings settings, Place place, Task task, WorkerRoute route,
                                                  SwarmTrace trace, ActorRef<SwarmResult> replyTo) {
        return createDurable(settings, place, task, route, trace, TrajectoryStore.NONE, replyTo);
    }

    /**
     * The same, keeping its sub-agents' trajectories (and its nested orchestrators') in {@code trajectories}:
     * the journal names where each is, and a resumed swarm reads back those of sub-agents that had finished.
     */
    public static Behavior<Command> createDurable(SwarmSettings settings, Place place, Task task, WorkerRoute route,
                                                  SwarmTrace trace, TrajectoryStore trajectories, ActorRef<SwarmResult> replyTo) {
        return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> Behaviors.withStash(100_000, stash -> {
            ActorRef<SwarmJournal.Reply> replies = ctx.messageAdapter(SwarmJournal.Reply.class, FromJournal::new);
            ActorRef<SwarmJournal.Command> journal = ctx.spawn(SwarmJournal.create(journalId(place), replies), "journal");
            ctx.watchWith(journal, JournalStopped.INSTANCE);
            return Behaviors.receive(Command.class)
                    .onMessage(FromJournal.class, f -> f.reply() instanceof SwarmJournal.Ready, f -> {
                        // The journal recovered its ledger (from its latest snapshot and the events after it): this is a copy.
                        SwarmJournal.Ready ready = (SwarmJournal.Ready) f.reply();
                        Orchestrator o = new Orchestrator(ctx, timers, settings, place, task, route, trace, replyTo, ready.ledger(),
                                journal, replies, trajectories);
                        return stash.unstashAll(ready.events() == 0 ? o.start() : o.resume());
                    })
                    .onMessage(FromJournal.class, f -> f.reply() instanceof SwarmJournal.Failed, f -> {
                        // A journal that does not make this swarm: nothing is resumed, nothing overwritten.
                        refuse(((SwarmJournal.Failed) f.reply()).reason(), place, task, trace, replyTo);
                        return Behaviors.stopped();
                    })
                    .onAnyMessage(m -> {
                        stash.stash(m);
                        return Behaviors.same();
                    })
                    .build();
        })));
    }

    /**
     * A durable orchestrator of a swarm known to be new (a fresh run folder, a swarm just submitted to the
     * cluster): it starts at once rather than after its journal's recovery, which for a new swarm only
     * finds nothing (a few milliseconds on the swarm's critical path). The journal checks meanwhile that
     * it holds nothing of this swarm; if it does, or cannot be read, nothing is written to it and the swarm
     * stops with why, as {@link #createDurable} would have before starting.
     */
    public static Behavior<Command> createNewDurable(SwarmSettings settings, Place place, Task task, WorkerRoute route,
                                                     SwarmTrace trace, TrajectoryStore trajectories, ActorRef<SwarmResult> replyTo) {
        return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> {
            ActorRef<SwarmJournal.Reply> replies = ctx.messageAdapter(SwarmJournal.Reply.class, FromJournal::new);
            ActorRef<SwarmJournal.Command> journal = ctx.spawn(SwarmJournal.createNew(journalId(place), replies), "journal");
            ctx.watchWith(journal, JournalStopped.INSTANCE);
            Orchestrator o = new Orchestrator(ctx, timers, settings, place, task, route, trace, replyTo, new SwarmLedger(), journal,
                    replies, trajectories);
            o.journalOpening = true;
            return o.start();
        }));
    }

    private Orchestrator(ActorContext<Command> ctx, TimerScheduler<Command> timers, SwarmSettings settings, Place place, Task task,
                         WorkerRoute route, SwarmTrace trace, ActorRef<SwarmResult> replyTo, SwarmLedger ledger,
                         ActorRef<SwarmJournal.Command> journal, ActorRef<SwarmJournal.Reply> journalReplies,
                         TrajectoryStore trajectoryStore) {
        super(ctx);
        this.trajectoryStore = trajectoryStore;
        this.ledger = ledger;
        this.journal = journal;
        this.journalReplies = journalReplies;
        this.outbox = new JournalOutbox(ledger.events(),
                journalReplies == null ? 0 : JournalOutbox.writeInterval(ctx.getSystem().settings().config()).toNanos());
        this.timers = timers;
        this.settings = settings;
        this.budget = settings.budget();
        this.spending = new SwarmSpending(budget);
        this.place = place;
        this.task = task;
        this.route = route;
        this.trace = trace;
        this.events = new SwarmTraceEvents(trace);
        this.replyTo = replyTo;
        this.episodeLink = ctx.messageAdapter(SwarmProtocol.Command.class, FromEpisode::new);
        this.answers = ctx.messageAdapter(Trajectory.class, Answered::new);
        this.nestedAnswers = ctx.messageAdapter(SwarmResult.class, NestedDone::new);
        this.ownEpisodeId = episodeId(place.agent(), 1);
        this.deadlineAtNanos = startNanos + budget.deadline().toNanos();
        this.subAgentDeadlineAtNanos = deadlineAtNanos - budget.finishReserve().toNanos();
    }

    private Orchestrator start() {
        record(new SwarmEvent.SwarmStarted(task.id(), task.prompt()));
        return startOwnEpisode(EpisodeHistory.NONE);
    }

    /**
     * Goes on from the journal: the rounds and budgets as they were, the sub-agents that were running
     * sent again with what they had done, the orchestrator's own episode too; then whatever may start.
     * Time budgets start again from now.
     */
    private Behavior<Command> resume() {
        spending.restore(ledger);
        // The parent counted this subtree's spending as it came, and kept none of it in its own journal:
        // what this journal holds goes up again, so the tree's budgets count it (running episodes' turns
        // are counted again as they replay).
        if (place.parent() != null) place.parent().tell(new ChildUsage(spending.subAgents(), spending.turns(), spending.tokens()));
        events.swarmResumed(place.agent(), ledger);
        SwarmEvent.SwarmEnded end = ledger.ended();
        if (end != null) { // it had finished: the answer is in the journal
            finished = true;
            replyTo.tell(SwarmResult.withoutRun(place.agent(), ownEpisodeId, place.runId(), task.id(), end.answer(), end.stopReason(),
                    end.error(), ledger.exhausted(), new SwarmResult.Metrics(0, 0, 0, 0, 0, ledger.subAgents(), ledger.turns(),
                    ledger.tokens(), ledger.rounds().size())));
            return Behaviors.stopped();
        }
        for (SwarmLedger.Round r : ledger.rounds()) rounds.add(new SpawnRound(r.state(), r.turn(), null, r.agents()));
        // The trajectories of attempts that ended before the crash, read back from where the journal says they are.
        ledger.trajectories().forEach((agent, refs) -> {
            for (String ref : refs) {
                Trajectory t = trajectoryStore.read(ref).orElse(null);
                if (t != null) trajectories.computeIfAbsent(agent, k -> new ArrayList<>()).add(t);
                else getContext().getLog().warn("{}: the trajectory {} of {} is not where its journal says", place.agent(), ref, agent);
            }
        });
        if (ledger.current() != null) current = rounds.get(rounds.size() - 1);
        for (SwarmLedger.Attempt a : List.copyOf(ledger.running().values())) {
            SpawnRound r = rounds.get(a.round() - 1);
            run(r, r.state().plan().subTask(a.subTaskId()), a.agent(), a.attempt(), a.episodeId(), ledger.history(a.episodeId()));
        }
        startOwnEpisode(ledger.history(ownEpisodeId));
        launch();
        return next();
    }

    private Orchestrator startOwnEpisode(EpisodeHistory history) {
        if (place.parent() == null && ledger.rounds().isEmpty() && history.isEmpty()) {
            events.swarmStarted(place.agent(), task.prompt(), budget, settings);
        }
        String parent = place.parent() == null ? null : SwarmEpisodeIds.parentOf(place.agent());
        events.orchestratorStarted(place.agent(), parent, task.prompt(), ownEpisodeId);
        int maxTurns = (int) Math.min(settings.orchestratorMaxTurns(), budget.maxTurns());
        EpisodeSpec spec = settings.orchestratorSpec(budget.deadline().toMillis(), maxTurns);
        route.tell(ownEpisodeId, new RunEpisode(ownEpisodeId, place.runId(), task, spec, 0, answers, episodeLink).withHistory(history));
        timers.startSingleTimer(new Lost(ownEpisodeId), budget.deadline().plus(settings.lostAfter()));
        timers.startSingleTimer(SubAgentDeadline.INSTANCE, Duration.ofNanos(subAgentDeadlineAtNanos - System.nanoTime()));
        return this;
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(FromEpisode.class, this::onFromEpisode)
                .onMessage(Answered.class, a -> onAnswered(a.trajectory()))
                .onMessage(NestedDone.class, this::onNestedDone)
                .onMessage(NestedStopped.class, this::onNestedStopped)
                .onMessage(ChildUsage.class, u -> {
                    spend(u.subAgents(), u.turns(), u.tokens());
                    return next();
                })
                .onMessage(Lost.class, this::onLost)
                .onMessageEquals(SubAgentDeadline.INSTANCE, () -> {
                    exhaustDeadline();
                    return next();
                })
                .onMessage(Cancel.class, this::onCancel)
                .onMessage(FromJournal.class, this::onJournal)
                .onMessageEquals(JournalStopped.INSTANCE, this::onJournalStopped)
                .onMessageEquals(ReopenJournal.INSTANCE, this::onReopenJournal)
                .onMessageEquals(WriteJournal.INSTANCE, () -> {
                    writeScheduled = false;
                    sendToJournal();
                    return this;
                })
                .build();
    }

    // ---- the orchestrator's own episode ----------------------------------------------------------

    private Behavior<Command> onFromEpisode(FromEpisode from) {
        if (from.message() instanceof EpisodeProgress p) return onProgress(p);
        if (from.message() instanceof SpawnSubAgents s) return onSpawn(s);
        // While a journal that failed is opened again (journal null) steps are still recorded: they wait in the outbox.
        if (from.message() instanceof SwarmProtocol.StepRecorded r && durable() && ours(r.episodeId())) {
            record(new SwarmEvent.StepRecorded(r.episodeId(), r.turn(), r.record()));
        }
        if (from.message() instanceof SwarmProtocol.RecordBeforeCalls r && ours(r.episodeId())) {
            SwarmProtocol.Recorded done = new SwarmProtocol.Recorded(r.episodeId(), r.turn());
            if (!durable()) {
                r.replyTo().tell(done);
                return this;
            }
            record(new SwarmEvent.StepRecorded(r.episodeId(), r.turn(), r.record()));
            awaitingWrite.add(new AwaitingWrite(ledger.events(), r.replyTo(), done));
            sendToJournal(); // an episode waits on this write: it goes now
        }
        return this;
    }

    /** Whether {@code episodeId} is an episode of this swarm still running: the orchestrator's own or a sub-agent's. */
    private boolean ours(String episodeId) {
        return episodeId.equals(ownEpisodeId) ? own == null : running.containsKey(episodeId);
    }

    private Behavior<Command> onProgress(EpisodeProgress p) {
        String agent = p.episodeId().equals(ownEpisodeId) ? place.agent() : running.containsKey(p.episodeId())
                ? running.get(p.episodeId()).agent() : null;
        if (agent == null) return this; // a late report of an episode already answered
        long[] added = spending.progress(p.episodeId(), p.turns(), p.tokens());
        events.turn(agent, p);
        spend(0, added[0], added[1]);
        return next();
    }

    private Behavior<Command> onSpawn(SpawnSubAgents s) {
        if (!s.episodeId().equals(ownEpisodeId)) {
            s.replyTo().tell(new SpawnOutcome("spawn_subagents came from episode " + s.episodeId() + ", not this swarm's orchestrator", false));
            return this;
        }
        for (int i = 0; i < rounds.size(); i++) {
            SpawnRound r = rounds.get(i);
            if (r.turnAtSpawn() != s.turn() || r.replyTo() != null) continue;
            // The orchestrator's episode resumed after a crash and asks again for a round journaled before it: never re-planned.
            SpawnRound attached = new SpawnRound(r.state(), r.turnAtSpawn(), s.replyTo(), r.agents());
            rounds.set(i, attached);
            if (r == current) current = attached;
            else s.replyTo().tell(outcomeOf(attached));
            return this;
        }
        if (current != null) {
            s.replyTo().tell(new SpawnOutcome("Only one spawn_subagents call runs at a time: put every sub-task in one plan.", false));
            return this;
        }
        if (spending.exhausted() != null) {
            s.replyTo().tell(new SpawnOutcome("No more sub-agents (" + spending.exhaustedDetail() + "). Finish with what you have.",
                    false));
            return this;
        }
        int round = rounds.size() + 1;
        PlanCheck.Result checked = PlanCheck.check(s.arguments(), new PlanCheck.Limits(settings.tools(),
                budget.maxSubAgents() - spending.subAgents(), place.depth() + 1 < settings.maxDepth()));
        if (!checked.ok()) {
            events.planRefused(place.agent(), round, s.turn(), checked.observation());
            s.replyTo().tell(new SpawnOutcome(checked.observation(), false));
            return this;
        }
        Plan plan = checked.plan();
        Map<String, String> agents = new LinkedHashMap<>();
        for (SubTask t : plan.subTasks()) {
            String agent = place.agent() + "/" + t.id();
            if (ledger.agentUsed(agent)) agent = agent + "@" + round; // a re-plan may reuse an id: the agent path stays unique
            agents.put(t.id(), agent);
        }
        events.planAccepted(place.agent(), round, s.turn(), plan, agents);
        record(new SwarmEvent.RoundPlanned(round, s.turn(), plan, agents));
        current = new SpawnRound(ledger.current().state(), s.turn(), s.replyTo(), agents);
        rounds.add(current);
        spend(plan.subTasks().size(), 0, 0);
        if (current != null && spending.exhausted() == null) launch();
        return next();
    }

    // ---- running sub-agents ----------------------------------------------------------------------

    /** Starts what may start, within the parallel budget; ends the round when nothing is left. */
    private void launch() {
        SpawnRound r = current;
        if (r == null) return;
        RoundState state = r.state();
        if (state.stoppedBecause() == null && state.joinReached() && state.anyRunning()) {
            cancel(stopRound(state, "join " + state.plan().join().describe() + " reached"), "join reached");
        }
        int slots = budget.maxParallel() - running.size();
        if (slots > 0 && spending.exhausted() == null) {
            for (SubTask t : state.ready(slots)) startAttempt(r, t);
        }
        if (state.over() || (state.joinReached() && !state.anyRunning())) endRound();
    }

    private void startAttempt(SpawnRound r, SubTask t) {
        RoundState state = r.state();
        String agent = r.agents().get(t.id());
        RoundState.Status status = state.status(t.id());
        int attempt = status.state() == RoundState.State.PENDING ? 1 : status.attempts(); // a retry has counted its attempt
        String episodeId = episodeId(agent, attempt);
        long timeLeft = TimeUnit.NANOSECONDS.toMillis(subAgentDeadlineAtNanos - System.nanoTime());
        boolean onSwarmClock = t.mode() != SubAgentMode.ORCHESTRATOR && timeLeft < settings.base().deadlineMillis();
        record(new SwarmEvent.AttemptStarted(state.round(), t.id(), agent, attempt, episodeId, onSwarmClock));
        run(r, t, agent, attempt, episodeId, EpisodeHistory.NONE);
    }

    /** Runs attempt {@code attempt} of sub-task {@code t} as {@code episodeId}, resuming after {@code history}. */
    private void run(SpawnRound r, SubTask t, String agent, int attempt, String episodeId, EpisodeHistory history) {
        RoundState state = r.state();
        String prompt = subAgentPrompt(t, state.dependencyAnswers(t));
        if (t.mode() != SubAgentMode.ORCHESTRATOR) { // a nested orchestrator announces itself
            events.subAgentStarted(agent, place.agent(), t, attempt, episodeId);
        }
        long timeLeft = TimeUnit.NANOSECONDS.toMillis(subAgentDeadlineAtNanos - System.nanoTime());
        running.put(episodeId, new Attempt(episodeId, agent, t.id(), attempt, System.nanoTime(), state,
                ledger.running().get(episodeId).onSwarmClock()));
        if (t.mode() == SubAgentMode.ORCHESTRATOR) {
            SwarmBudget lease = budget.lease(budget.maxSubAgents() - spending.subAgents(), budget.maxTurns() - spending.turns(),
                    budget.maxTokens() - spending.tokens(), Duration.ofMillis(Math.max(1, timeLeft)));
            Place under = new Place(place.runId(), agent, place.depth() + 1, getContext().getSelf());
            ActorRef<Command> child = getContext().spawnAnonymous(journal != null
                    ? createDurable(settings.withBudget(lease), under, task.part(prompt), route, trace, trajectoryStore, nestedAnswers)
                    : create(settings.withBudget(lease), under, task.part(prompt), route, trace, nestedAnswers));
            getContext().watchWith(child, new NestedStopped(agent));
            nested.put(agent, child);
            return;
        }
        EpisodeSpec spec = settings.subAgentSpec(t, (int) Math.min(Integer.MAX_VALUE, budget.maxTurns() - spending.turns()),
                (int) Math.min(Integer.MAX_VALUE, budget.maxTokens() - spending.tokens()), Math.max(1, timeLeft));
        // A part of the swarm's task: the task's suite environment (its tools' state) comes with it, unscored.
        route.tell(episodeId, new RunEpisode(episodeId, place.runId(), task.part(prompt), spec, 0, answers, episodeLink)
                .withHistory(history));
        timers.startSingleTimer(new Lost(episodeId), Duration.ofMillis(spec.deadlineMillis()).plus(settings.lostAfter()));
    }

    /** A sub-agent sees its goal, the swarm's task for context, and the answers of what it depends on. */
    private String subAgentPrompt(SubTask t, Map<String, String> dependencyAnswers) {
        StringBuilder b = new StringBuilder(t.goal());
        b.append("\n\n(You are sub-agent \"").append(t.id()).append("\" of a swarm working on: ").append(task.prompt()).append(')');
        if (!dependencyAnswers.isEmpty()) {
            b.append("\n\nAnswers of the sub-tasks this one depends on:");
            dependencyAnswers.forEach((id, answer) -> b.append("\n[").append(id).append("] ").append(answer));
        }
        return b.toString();
    }

    private Behavior<Command> onAnswered(Trajectory t) {
        if (t.episodeId().equals(ownEpisodeId)) return onOwnEpisodeDone(t);
        Attempt a = running.remove(t.episodeId());
        if (a == null) return this; // a second answer (a re-sent episode) or one already taken as lost
        timers.cancel(new Lost(t.episodeId()));
        long[] added = spending.settle(t.episodeId(), t.stats().turns(), t.stats().completionTokens());
        serialNanos += t.stats().wallNanos();
        trajectories.computeIfAbsent(a.agent(), k -> new ArrayList<>()).add(t);
        String ref = durable() ? trajectoryStore.write(t) : null;
        events.messages(a.agent(), a.startNanos(), t);
        if (t.stopReason() == StopReason.DEADLINE && a.onSwarmClock()) {
            // Its time ran out because the swarm's did: that is the deadline budget, not a sub-agent to retry.
            exhaustDeadline();
        }
        spend(0, added[0], added[1]); // may spend a budget, which stops the round: then no retry
        RoundState state = a.round();
        long steps = t.stats().turns();
        long tokens = t.stats().completionTokens();
        if (t.stopReason() == StopReason.FINAL_ANSWER) {
            ended(a, SwarmEvent.Outcome.DONE, t.finalAnswer(), steps, tokens, t.stats().turns(), ref);
            finished(a, t, "done", null);
        } else if (t.stopReason() == StopReason.CANCELLED || (t.stopReason() == StopReason.DEADLINE && a.onSwarmClock())) {
            ended(a, SwarmEvent.Outcome.CANCELLED, t.error() != null ? t.error() : t.stopReason() == StopReason.DEADLINE
                    ? "the swarm's deadline" : "cancelled", steps, tokens, t.stats().turns(), ref);
            finished(a, t, "cancelled", why(t));
        } else if (retryable(t) && a.attempt() <= settings.retries() && spending.exhausted() == null
                && state.stoppedBecause() == null && current != null && state == current.state()) {
            finished(a, t, "failed", why(t));
            ended(a, SwarmEvent.Outcome.RETRIED, why(t), steps, tokens, t.stats().turns(), ref);
            events.retry(a.agent(), a.attempt() + 1, why(t));
            startAttempt(current, state.plan().subTask(a.subTaskId()));
        } else {
            ended(a, SwarmEvent.Outcome.FAILED, why(t), steps, tokens, t.stats().turns(), ref);
            finished(a, t, "failed", why(t));
        }
        launch();
        return next();
    }

    private void finished(Attempt a, Trajectory t, String state, String error) {
        events.agentFinished(a.agent(), t, state, error, a.attempt());
    }

    /** A crash, a failing policy, its own deadline, or any other failure of the infrastructure under it (a tool's server down). */
    private static boolean retryable(Trajectory t) {
        StopReason r = t.stopReason();
        return t.infraFailure() != null || r == StopReason.CRASHED || r == StopReason.POLICY_ERROR || r == StopReason.DEADLINE;
    }

    private static String why(Trajectory t) {
        String reason = t.stopReason().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
        return t.error() == null ? reason : reason + ": " + t.error();
    }

    /** No answer long after the episode's own deadline: its node died. It counts as a crash, so it is retried. */
    private Behavior<Command> onLost(Lost l) {
        if (l.episodeId().equals(ownEpisodeId)) {
            if (own == null) {
                return onOwnEpisodeDone(Trajectory.notRun(ownEpisodeId, place.runId(), task.id(), StopReason.CRASHED,
                        "the orchestrator's episode did not answer within its deadline and " + settings.lostAfter().toMillis() + " ms")
                        .failedBy(InfraFailure.NODE_LOST, null));
            }
            return this;
        }
        Attempt a = running.get(l.episodeId());
        if (a == null) return this;
        // A node that is only slow would go on with it: stop it, since the retry takes its place.
        route.tell(l.episodeId(), new CancelEpisode(l.episodeId(), "taken as lost and run again"));
        return onAnswered(Trajectory.notRun(l.episodeId(), place.runId(), a.subTaskId(), StopReason.CRASHED,
                "no answer within its deadline and " + settings.lostAfter().toMillis() + " ms (its node may have died)")
                .failedBy(InfraFailure.NODE_LOST, null));
    }

    private Behavior<Command> onNestedDone(NestedDone d) {
        SwarmResult r = d.result();
        nestedResults.put(r.agent(), r);
        String episodeId = episodeId(r.agent(), 1);
        Attempt a = running.remove(episodeId);
        if (a == null) return this;
        RoundState state = a.round();
        long steps = r.metrics().criticalSteps();
        serialNanos += r.metrics().serialNanos();
        if (r.answered()) ended(a, SwarmEvent.Outcome.DONE, r.answer(), steps, r.metrics().tokens(), r.metrics().turns());
        else if (r.stopReason() == StopReason.CANCELLED) {
            ended(a, SwarmEvent.Outcome.CANCELLED, "cancelled", steps, r.metrics().tokens(), r.metrics().turns());
        } else {
            ended(a, SwarmEvent.Outcome.FAILED, "the nested orchestrator ended without an answer (" + r.stopReason() + ")"
                    + (r.error() == null ? "" : ": " + r.error()), steps, r.metrics().tokens(), r.metrics().turns());
        }
        launch();
        return next();
    }

    /** A nested orchestrator that stopped without a result crashed: its sub-task failed. */
    private Behavior<Command> onNestedStopped(NestedStopped s) {
        nested.remove(s.agent());
        Attempt a = running.remove(episodeId(s.agent(), 1));
        if (a == null) return this;
        events.nestedCrashed(s.agent());
        ended(a, SwarmEvent.Outcome.FAILED, "the nested orchestrator crashed", 0, 0, 0);
        launch();
        return next();
    }

    // ---- the journal ------------------------------------------------------------------------------

    /** Applies an event to the ledger and, for a durable orchestrator, sends it to the journal (which writes behind). */
    private void record(SwarmEvent e) {
        ledger.apply(e);
        if (!durable()) return;
        outbox.add(e);
        sendToJournal();
    }

    /**
     * One batch in flight at a time, and batches at most once per write interval unless an episode or the
     * swarm's answer waits on one: what accumulates meanwhile goes in the next, so a busy swarm writes few
     * large batches rather than an event per transaction (each a database commit). While the journal is
     * being opened again, events wait here; it gets them when it is ready.
     */
    private void sendToJournal() {
        if (journal == null || !outbox.canSend()) return;
        long wait = outbox.waitNanos(System.nanoTime());
        if (wait > 0 && pendingResult == null && awaitingWrite.isEmpty()) {
            if (!writeScheduled) {
                writeScheduled = true;
                timers.startSingleTimer(WriteJournal.INSTANCE, Duration.ofNanos(wait));
            }
            return;
        }
        journal.tell(outbox.takeBatch(System.nanoTime()));
    }

    private boolean durable() {
        return journalReplies != null;
    }

    /** A durable swarm's result goes out once its journal holds every event: the answer depends on all of them. */
    private void replyWhenWritten() {
        awaitingWrite.removeIf(w -> {
            if (w.events() > outbox.confirmed()) return false;
            w.replyTo().tell(w.reply());
            return true;
        });
        if (pendingResult != null && outbox.allConfirmed()) {
            replyTo.tell(pendingResult);
            pendingResult = null;
        }
    }

    /** Attempt {@code a} ended as {@code outcome}: the round counts it through the ledger. */
    private void ended(Attempt a, SwarmEvent.Outcome outcome, String text, long steps, long tokens, long turns) {
        ended(a, outcome, text, steps, tokens, turns, null);
    }

    /** The same, with where the attempt's trajectory was kept ({@link TrajectoryStore}), or null. */
    private void ended(Attempt a, SwarmEvent.Outcome outcome, String text, long steps, long tokens, long turns, String trajectoryRef) {
        record(new SwarmEvent.AttemptEnded(a.episodeId(), outcome, text, steps, tokens, turns, trajectoryRef));
    }

    /** Nothing more starts in the round; returns the sub-tasks still running, for the caller to cancel. */
    private List<String> stopRound(RoundState state, String why) {
        record(new SwarmEvent.RoundStopped(state.round(), why));
        List<String> runningIds = new ArrayList<>();
        state.statuses().forEach((id, st) -> {
            if (st.state() == RoundState.State.RUNNING) runningIds.add(id);
        });
        return runningIds;
    }

    private Behavior<Command> onJournal(FromJournal from) {
        if (journalOpening) {
            // A new swarm's journal has recovered (behind the swarm, which did not wait): empty, or not this swarm's to write.
            journalOpening = false;
            if (from.reply() instanceof SwarmJournal.Failed f) return abandon(f.reason());
            if (from.reply() instanceof SwarmJournal.Ready) return next();
        }
        if (from.reply() instanceof SwarmJournal.Written w) {
            outbox.written(w.events());
            sendToJournal();
            replyWhenWritten();
            return next();
        } else if (from.reply() instanceof SwarmJournal.Ready r) {
            // A journal opened again after a failed write: it has what reached the database; send the rest again.
            long have = r.events();
            long confirmed = outbox.confirmed();
            if (have < confirmed) {
                getContext().getLog().error("the journal of {} lost confirmed events ({} of {})", place.agent(), have, confirmed);
            }
            outbox.reopened(have);
            sendToJournal();
            replyWhenWritten();
            return next();
        } else if (from.reply() instanceof SwarmJournal.Failed f) {
            getContext().getLog().error("{}", f.reason());
        }
        return this;
    }

    /**
     * A new swarm whose journal turned out not to be its own (or unreadable): what it started is cancelled,
     * nothing is written, and its caller gets why, as a durable orchestrator that had waited for its journal.
     */
    private Behavior<Command> abandon(String why) {
        getContext().getLog().error("{}", why);
        for (Attempt a : running.values()) {
            ActorRef<Command> child = nested.get(a.agent());
            if (child != null) child.tell(new Cancel(why));
            else route.tell(a.episodeId(), new CancelEpisode(a.episodeId(), why));
        }
        if (own == null) route.tell(ownEpisodeId, new CancelEpisode(ownEpisodeId, why));
        refuse(why, place, task, trace, replyTo);
        return Behaviors.stopped();
    }

    /** A journal that is not this swarm's to resume or write: the trace and the caller hear why; nothing ran. */
    private static void refuse(String why, Place place, Task task, SwarmTrace trace, ActorRef<SwarmResult> replyTo) {
        new SwarmTraceEvents(trace).journalRefused(place.agent(), why);
        String episodeId = SwarmEpisodeIds.of(place.runId(), place.agent(), 1);
        replyTo.tell(SwarmResult.withoutRun(place.agent(), episodeId, place.runId(), task.id(), null, StopReason.CRASHED, why,
                null, new SwarmResult.Metrics(0, 0, 0, 0, 0, 0, 0, 0, 0)));
    }

    /** The journal stopped (a write failed): open it again after a pause; what it lacks is sent again when it is ready. */
    private Behavior<Command> onJournalStopped() {
        journal = null;
        journalOpening = false; // the journal opened again recovers before it answers, as any resumed one
        outbox.inFlightLost(); // the batch in flight may not have made it
        timers.startSingleTimer(ReopenJournal.INSTANCE, settings.lostAfter().dividedBy(10).plusMillis(200));
        return this;
    }

    private Behavior<Command> onReopenJournal() {
        if (journal == null && (!finished || pendingResult != null)) {
            journal = getContext().spawnAnonymous(SwarmJournal.create(journalId(place), journalReplies));
            getContext().watchWith(journal, JournalStopped.INSTANCE);
        }
        return this;
    }

    private static String journalId(Place place) {
        return place.runId() + ":" + place.agent();
    }

    // ---- budgets ---------------------------------------------------------------------------------

    /** Counts spending here and, for a nested orchestrator, up the tree; a budget passed is exhausted. */
    private void spend(int subAgents, long turns, long tokens) {
        if (subAgents == 0 && turns == 0 && tokens == 0) return;
        SwarmSpending.Passed passed = spending.add(subAgents, turns, tokens);
        if (place.parent() != null) place.parent().tell(new ChildUsage(subAgents, turns, tokens));
        if (passed != null) exhaust(passed.budget(), passed.detail());
    }

    /** A spent budget stops the round: running sub-agents are cancelled, pending ones skipped; the observation says why. */
    private void exhaust(String which, String detail) {
        if (!spending.exhaust(which, detail)) return;
        record(new SwarmEvent.BudgetExhausted(which, detail));
        events.budgetExhausted(place.agent(), which, detail);
        if (current != null) {
            cancel(stopRound(current.state(), which + " budget spent"), which + " budget spent");
            launch();
        }
    }

    private void exhaustDeadline() {
        exhaust("deadline", "the swarm's deadline is " + budget.finishReserve().toMillis()
                + " ms away: sub-agents stop, the orchestrator may still answer");
    }

    private void cancel(List<String> subTaskIds, String reason) {
        Set<String> ids = new HashSet<>(subTaskIds);
        for (Attempt a : List.copyOf(running.values())) {
            if (!ids.contains(a.subTaskId()) || a.round() != current.state()) continue;
            ActorRef<Command> child = nested.get(a.agent());
            if (child != null) child.tell(new Cancel(reason));
            else route.tell(a.episodeId(), new CancelEpisode(a.episodeId(), reason));
        }
    }

    private Behavior<Command> onCancel(Cancel c) {
        exhaust("cancel", "the swarm was cancelled: " + c.reason());
        if (own == null) route.tell(ownEpisodeId, new CancelEpisode(ownEpisodeId, c.reason()));
        return next();
    }

    /** Handlers may end the swarm deep inside (a round's last answer after the orchestrator ended): then the actor stops. */
    private Behavior<Command> next() {
        return finished && pendingResult == null ? Behaviors.stopped() : this;
    }

    // ---- ending ----------------------------------------------------------------------------------

    private void endRound() {
        SpawnRound r = current;
        current = null;
        record(new SwarmEvent.RoundEnded(r.state().round()));
        // A resumed orchestrator's episode may not have asked again yet: it gets the outcome when it does.
        if (r.replyTo() != null) r.replyTo().tell(outcomeOf(r));
        if (own != null) finishSwarm();
    }

    /** What a round's spawn call returns: each sub-task's answer or what became of it. */
    private SpawnOutcome outcomeOf(SpawnRound r) {
        String preface = spending.exhausted() == null ? null : "Stopped early (" + spending.exhaustedDetail()
                + "): sub-agents still running were cancelled. Finish with what you have.";
        // The answers share the orchestrator's tool-result size, so a wide round shows every answer, shorter.
        int share = (settings.base().maxToolResultChars() - 400) / Math.max(1, r.state().plan().subTasks().size());
        int perAnswer = Math.max(80, Math.min(settings.maxAnswerChars(), share));
        return new SpawnOutcome(r.state().observation(preface, perAnswer), spending.exhausted() == null);
    }

    private Behavior<Command> onOwnEpisodeDone(Trajectory t) {
        if (own != null) return this;
        own = t;
        timers.cancel(new Lost(ownEpisodeId));
        long[] added = spending.settle(ownEpisodeId, t.stats().turns(), t.stats().completionTokens());
        serialNanos += t.stats().wallNanos();
        events.messages(place.agent(), startNanos, t);
        spend(0, added[0], added[1]);
        if (current != null) {
            // The orchestrator ended mid-round (deadline, cancel): its sub-agents are cancelled, and their answers still kept.
            cancel(stopRound(current.state(), "the orchestrator ended"), "the orchestrator ended");
            launch();
            return next();
        }
        finishSwarm();
        return next();
    }

    private void finishSwarm() {
        if (current != null || finished) return;
        finished = true;
        SwarmTally tally = SwarmTally.of(ledger.rounds(), own.stats().turns(), trajectories, nestedResults);
        List<String> missing = tally.missing();
        CriticalSteps.Summary cs = tally.steps();
        long wall = System.nanoTime() - startNanos;
        SwarmResult.Metrics m = new SwarmResult.Metrics(cs.critical(), cs.total(), cs.parallelism(), wall, serialNanos,
                spending.subAgents(), spending.turns(), spending.tokens(), rounds.size());
        String answer = own.stopReason() == StopReason.FINAL_ANSWER ? own.finalAnswer() : null;
        record(new SwarmEvent.SwarmEnded(answer, own.stopReason(), own.error(), own.stats().turns(), own.stats().completionTokens()));
        SwarmResult result = new SwarmResult(place.agent(), answer, own.stopReason(), own.error(), own, tally.subAgents(), missing,
                spending.exhausted(), m, null);
        events.orchestratorFinished(place.agent(), own, answer);
        if (place.parent() == null) events.swarmFinished(place.agent(), answer, missing, m);
        if (durable()) {
            pendingResult = result;
            sendToJournal(); // the answer waits on this write: it goes now
            replyWhenWritten();
        } else {
            replyTo.tell(result);
        }
    }

    /** The metrics as the trace and the command line's JSON show them. */
    public static ObjectNode metricsJson(SwarmResult.Metrics m) {
        return SwarmTraceEvents.metricsJson(m);
    }

    private String episodeId(String agent, int attempt) {
        return SwarmEpisodeIds.of(place.runId(), agent, attempt);
    }

    /** The run a root orchestrator's own episode id belongs to ({@link SwarmEpisodeIds#runIdOf}). */
    public static String runIdOf(String rootEpisodeId) {
        return SwarmEpisodeIds.runIdOf(rootEpisodeId);
    }

    /** The agent a swarm's episode id belongs to ({@link SwarmEpisodeIds#agentOf}). */
    public static String agentOf(String episodeId) {
        return SwarmEpisodeIds.agentOf(episodeId);
    }

    /** Which attempt of its agent a swarm's episode id is ({@link SwarmEpisodeIds#attemptOf}). */
    public static int attemptOf(String episodeId) {
        return SwarmEpisodeIds.attemptOf(episodeId);
    }
}
