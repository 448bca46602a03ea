package dev.agentswarm.orchestrator.swarm;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import dev.agentswarm.core.CborSerializable;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.orchestrator.WorkerRoute;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.Effect;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * A swarm of a cluster: a sharded entity of the {@code swarm} type (its entity id is the run id) on the
 * nodes with the {@value #ROLE} role, remembered, so that when its node dies sharding starts it again on
 * another node without being asked. It journals what it needs to start again — the task, the swarm's
 * settings as the client resolved them, and the clients to tell — and runs the swarm's root
 * {@link Orchestrator} as a durable child, which resumes from its own journal: nothing planned is planned
 * again and no sub-agent that answered runs again. Every client hears progress (the trace's events that
 * draw the live tree) and the answer, wherever the swarm runs by then.
 *
 * <p>Clients {@link Start} a swarm or {@link Attach} to one by its run id. A finished swarm passivates (and
 * is forgotten by sharding); attaching again starts it once more, and its orchestrator answers from its
 * journal. The journal must be one the orchestrator nodes share (PostgreSQL) for a swarm to move.
 */
public final class SwarmEntity extends EventSourcedBehavior<SwarmEntity.Command, SwarmEntity.Event, SwarmEntity.State> {

    public static final EntityTypeKey<Command> KEY = EntityTypeKey.create(Command.class, "swarm");

    /** The nodes that host swarms. */
    public static final String ROLE = "orchestrator";

    public interface Command extends CborSerializable {}

    /**
     * Run {@code task} as this entity's swarm; {@code config} is the HOCON of the client's
     * {@code agentswarm.swarm} and {@code agentswarm.episode} settings (over the node's own, read as
     * {@link ClientSwarmConfig} says: no include, no reference to the node's settings or environment),
     * {@code tools} the sub-agents' tools. A swarm already started keeps its own task and only adds the
     * client. Anything refused is answered {@link Refused}.
     */
    public record Start(Task task, String config, List<String> tools, ActorRef<Update> replyTo) implements Command {}

    /** Hear this swarm's progress and its answer; a run id with no swarm is answered {@link Unknown}. */
    public record Attach(ActorRef<Update> replyTo) implements Command {}

    private record Answered(SwarmResult result) implements Command, NoSerializationVerificationNeeded {}

    private enum OrchestratorStopped implements Command, NoSerializationVerificationNeeded { INSTANCE }

    private enum Relaunch implements Command, NoSerializationVerificationNeeded { INSTANCE }

    private enum NoSwarm implements Command, NoSerializationVerificationNeeded { INSTANCE }

    /** How long an entity with nothing in its journal waits for a {@link Start} before it passivates. */
    private static final Duration IDLE_WITHOUT_SWARM = Duration.ofSeconds(30);

    /** What a client hears. */
    public interface Update extends CborSerializable {}

    /** The swarm runs on {@code node}: started there, or gone on there from its journal ({@code resumed}). */
    public record Accepted(String runId, String node, boolean resumed) implements Update {}

    /** One event of the swarm's trace (JSON), of the kinds that draw the live tree. */
    public record Progress(String runId, String event) implements Update {}

    /** The swarm's answer (null without one), how it ended, what is missing, its metrics, and where it finished. */
    public record Finished(String runId, String answer, StopReason stopReason, String error, List<String> missing,
                           String budgetExhausted, SwarmResult.Metrics metrics, String node) implements Update {
        public Finished {
            missing = List.copyOf(missing);
        }
    }

    /** Attached to a run id that has no swarm. */
    public record Unknown(String runId, String reason) implements Update {}

    /** The request was refused and nothing was started: a run id that is not one, or settings a client may not send. */
    public record Refused(String runId, String reason) implements Update {}

    /** What the entity journals. */
    public interface Event extends CborSerializable {}

    public record Submitted(Task task, String config, List<String> tools) implements Event {
        public Submitted {
            tools = List.copyOf(tools);
        }
    }

    public record Subscribed(ActorRef<Update> client) implements Event {}

    /** The swarm (null before it was submitted) and its clients. */
    public record State(Submitted swarm, List<ActorRef<Update>> clients) {
        static final State EMPTY = new State(null, List.of());

        State with(Event e) {
            if (e instanceof Submitted s) return new State(s, clients);
            List<ActorRef<Update>> more = new ArrayList<>(clients);
            more.add(((Subscribed) e).client());
            return new State(swarm, List.copyOf(more));
        }
    }

    /**
     * A swarm's files on the node that runs it: its trace (appended to on a resume) and its sub-agents'
     * trajectories, in its run folder there.
     */
    public interface RunFiles {
        /** Opens swarm {@code runId}'s files; {@code listener} sees each trace event, on the trace's writer thread. */
        Opened open(String runId, Consumer<ObjectNode> listener);

        /** The swarm finished here and its files are closed (e.g. draw its timeline). */
        default void finished(String runId) {}
    }

    /** A swarm's open files; {@code close} writes what is queued and closes them. */
    public record Opened(SwarmTrace trace, TrajectoryStore trajectories, Runnable close) {}

    /** Trace events a client's live view draws; the rest (every message) stays in the trace file. */
    private static final Set<String> PROGRESS_KINDS = Set.of("swarm_started", "swarm_resumed", "agent_started", "turn", "plan",
            "retry", "agent_finished", "budget_exhausted", "swarm_finished");

    private final ActorContext<Command> ctx;
    private final ActorRef<ClusterSharding.ShardCommand> shard;
    private final TimerScheduler<Command> timers;
    private final String runId;
    private final Config nodeConfig;
    private final WorkerRoute route;
    private final RunFiles runFiles;
    private final String node;
    /** Read by the trace's writer thread, which forwards progress. */
    private final List<ActorRef<Update>> clients = new CopyOnWriteArrayList<>();
    private ActorRef<Orchestrator.Command> orchestrator;
    private Opened files;
    private Finished finished;
    private int launches;

    /**
     * The entity for run {@code runId} on a node with configuration {@code nodeConfig}: its swarm's episodes go
     * by {@code route}, its files are {@code runFiles}, and it passivates through {@code shard} (outside
     * sharding, null: it stops).
     */
    public static Behavior<Command> create(ActorRef<ClusterSharding.ShardCommand> shard, String runId, Config nodeConfig,
                                           WorkerRoute route, RunFiles runFiles) {
        return Behaviors.setup(ctx -> Behaviors.withTimers(timers ->
                new SwarmEntity(ctx, timers, shard, runId, nodeConfig, route, runFiles)));
    }

    private SwarmEntity(ActorContext<Command> ctx, TimerScheduler<Command> timers, ActorRef<ClusterSharding.ShardCommand> shard,
                        String runId, Config nodeConfig, WorkerRoute route, RunFiles runFiles) {
        super(persistenceId(runId));
        this.ctx = ctx;
        this.shard = shard;
        this.timers = timers;
        this.runId = runId;
        this.nodeConfig = nodeConfig;
        this.route = route;
        this.runFiles = runFiles;
        this.node = Cluster.get(ctx.getSystem()).selfMember().address().toString();
    }

    public static PersistenceId persistenceId(String runId) {
        return PersistenceId.of("swarm-run", runId);
    }

    /** The settings a client sends with {@link Start}: its {@code agentswarm.swarm} and {@code agentswarm.episode}, resolved. */
    public static String clientConfig(Config config) {
        return config.withOnlyPath("agentswarm.swarm").withFallback(config.withOnlyPath("agentswarm.episode")).root().render(
                com.typesafe.config.ConfigRenderOptions.concise());
    }

    @Override
    public State emptyState() {
        return State.EMPTY;
    }

    @Override
    public CommandHandler<Command, Event, State> commandHandler() {
        return newCommandHandlerBuilder().forAnyState()
                .onCommand(Start.class, this::onStart)
                .onCommand(Attach.class, this::onAttach)
                .onCommand(Answered.class, (state, a) -> onAnswered(a.result()))
                .onCommand(OrchestratorStopped.class, (state, s) -> onOrchestratorStopped())
                .onCommand(NoSwarm.class, (state, n) -> {
                    if (state.swarm() == null) {
                        // Started by sharding for a swarm whose journal is not in this node's database: nothing to run here.
                        ctx.getLog().error("swarm {} was started on {} but its journal is not in this node's database: is the"
                                + " journal database shared by the orchestrator nodes?", runId, node);
                        passivate();
                    }
                    return Effect().none();
                })
                .onCommand(Relaunch.class, (state, r) -> {
                    if (orchestrator == null && finished == null && state.swarm() != null) launch(state.swarm(), true);
                    return Effect().none();
                })
                .build();
    }

    private Effect<Event, State> onStart(State state, Start s) {
        if (refused(s.replyTo())) return Effect().none();
        if (state.swarm() != null) return subscribe(state, s.replyTo());
        try {
            ClientSwarmConfig.parse(s.config());
        } catch (IllegalArgumentException e) {
            ctx.getLog().warn("swarm {}: refused the settings {} sent: {}", runId, s.replyTo().path().address(), e.getMessage());
            s.replyTo().tell(new Refused(runId, e.getMessage()));
            passivate();
            return Effect().none();
        }
        Submitted swarm = new Submitted(s.task(), s.config(), s.tools());
        return Effect().persist(List.of(swarm, new Subscribed(s.replyTo()))).thenRun(st -> {
            clients.add(s.replyTo());
            s.replyTo().tell(new Accepted(runId, node, false));
            launch(swarm, false);
        });
    }

    private Effect<Event, State> onAttach(State state, Attach a) {
        if (refused(a.replyTo())) return Effect().none();
        if (state.swarm() == null) {
            a.replyTo().tell(new Unknown(runId, "no swarm " + runId + " in the journal"));
            passivate();
            return Effect().none();
        }
        return subscribe(state, a.replyTo());
    }

    /**
     * Whether this entity's run id is not one ({@link SwarmRunIds}): the client is told so and the entity
     * goes, having opened nothing (the run id names the swarm's folder).
     */
    private boolean refused(ActorRef<Update> client) {
        String problem = SwarmRunIds.problem(runId);
        if (problem == null) return false;
        ctx.getLog().warn("swarm {} refused for {}: {}", runId, client.path().address(), problem);
        client.tell(new Refused(runId, problem));
        passivate();
        return true;
    }

    /** A client joins: it hears where the swarm runs, and the answer now if there is one. */
    private Effect<Event, State> subscribe(State state, ActorRef<Update> client) {
        Runnable tell = () -> {
            if (!clients.contains(client)) clients.add(client);
            if (finished != null) client.tell(finished);
            else client.tell(new Accepted(runId, node, true));
        };
        if (state.clients().contains(client)) {
            tell.run();
            return Effect().none();
        }
        return Effect().persist(new Subscribed(client)).thenRun(st -> tell.run());
    }

    private Effect<Event, State> onAnswered(SwarmResult r) {
        finished = new Finished(runId, r.answer(), r.stopReason(), r.error(), r.missing(), r.budgetExhausted(), r.metrics(), node);
        closeFiles();
        runFiles.finished(runId);
        for (ActorRef<Update> c : clients) c.tell(finished);
        timers.cancel(Relaunch.INSTANCE);
        passivate();
        return Effect().none();
    }

    /**
     * Done here: a passivated entity is no longer remembered, so sharding does not start it again; a
     * later message (an attach) starts it from the journals. An entity that stopped by itself would be.
     */
    private void passivate() {
        if (shard != null) shard.tell(new ClusterSharding.Passivate<>(ctx.getSelf()));
        else ctx.stop(ctx.getSelf());
    }

    /** The orchestrator stopped without answering (it crashed): start it again, from its journal, after a pause. */
    private Effect<Event, State> onOrchestratorStopped() {
        orchestrator = null;
        if (finished == null) {
            ctx.getLog().warn("the orchestrator of swarm {} stopped without answering; going on from its journal", runId);
            timers.startSingleTimer(Relaunch.INSTANCE, Duration.ofMillis(Math.min(10_000, 500L << Math.min(5, launches))));
        }
        return Effect().none();
    }

    private void launch(Submitted swarm, boolean resumed) {
        launches++;
        // Checked when it was submitted; read the same way again, so a journal from before the check runs nothing it refuses.
        Config config = ClientSwarmConfig.parse(swarm.config()).withFallback(nodeConfig);
        Set<String> tools = new TreeSet<>(swarm.tools());
        SwarmSettings settings = SwarmSettings.fromConfig(config, tools);
        if (files == null) files = runFiles.open(runId, this::forward);
        ActorRef<SwarmResult> answers = ctx.messageAdapter(SwarmResult.class, Answered::new);
        // Just submitted, the swarm is new: its orchestrator starts without reading its (empty) journal first.
        Orchestrator.Place root = Orchestrator.Place.root(runId);
        orchestrator = ctx.spawn(!resumed && launches == 1
                        ? Orchestrator.createNewDurable(settings, root, swarm.task(), route, files.trace(), files.trajectories(), answers)
                        : Orchestrator.createDurable(settings, root, swarm.task(), route, files.trace(), files.trajectories(), answers),
                "orchestrator-" + launches);
        ctx.watchWith(orchestrator, OrchestratorStopped.INSTANCE);
        ctx.getLog().info("swarm {} {} on {}", runId, resumed ? "goes on from its journal" : "starts", node);
    }

    private void forward(ObjectNode event) {
        if (clients.isEmpty() || !PROGRESS_KINDS.contains(event.path("kind").asText())) return;
        Progress p = new Progress(runId, event.toString());
        for (ActorRef<Update> c : clients) c.tell(p);
    }

    private void closeFiles() {
        if (files != null) {
            files.close().run();
            files = null;
        }
    }

    @Override
    public EventHandler<State, Event> eventHandler() {
        return (state, event) -> state.with(event);
    }

    @Override
    public SignalHandler<State> signalHandler() {
        return newSignalHandlerBuilder()
                .onSignal(RecoveryCompleted.instance(), state -> {
                    clients.addAll(state.clients());
                    // Started again (its node died, or a client attached after it passivated): the swarm goes on, and says where.
                    if (state.swarm() != null && SwarmRunIds.problem(runId) == null) {
                        launch(state.swarm(), true);
                        for (ActorRef<Update> c : clients) c.tell(new Accepted(runId, node, true));
                    } else {
                        timers.startSingleTimer(NoSwarm.INSTANCE, IDLE_WITHOUT_SWARM);
                    }
                })
                .onSignal(PostStop.instance(), state -> closeFiles())
                .build();
    }
}
