package dev.agentswarm.workers;

import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.WorkerProtocol;
import dev.agentswarm.core.protocol.WorkerProtocol.CancelEpisode;
import dev.agentswarm.core.protocol.WorkerProtocol.RunEpisode;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.ChildFailed;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * A sharded entity of the {@code worker} region that runs many episodes, each a cheap child
 * {@link EpisodeActor}. Every {@link RunEpisode} is answered exactly once: the episode replies to
 * the requester itself and then stops; if it fails instead, the worker sees the failure and
 * answers with a {@link StopReason#CRASHED} trajectory.
 * A duplicate request for an episode that is running or was answered recently is ignored, so
 * a coordinator may re-send after a node loss without getting two answers. A requester that asks
 * for receipts hears which node accepted the episode (again for a duplicate of a running one).
 * The same episode asked for by another requester is a durable swarm's orchestrator that went on
 * elsewhere after its own node died: the first requester is gone, so the episode runs for the new
 * one from the history it sends (a run still going for the old one is stopped first).
 *
 * <p>When sharding hands the worker to another node (a node joins or leaves), it drains: running
 * episodes go on for up to {@code hand-off-drain} and answer as usual, while requests that still
 * reach it are given back at once; what is left after the drain is stopped and given back too
 * ({@link WorkerProtocol.Released}, or a {@link StopReason#CANCELLED} answer for a requester without
 * receipts), so the requester sends it again and the worker's next incarnation runs it.
 */
public final class RolloutWorker extends AbstractBehavior<WorkerProtocol.Command> {

    /** Sent by sharding before a hand-off: stop once the running episodes are answered. */
    public enum Stop implements WorkerProtocol.Command, NoSerializationVerificationNeeded { INSTANCE }

    /** The hand-off drain is over: give back what still runs. */
    private enum DrainOver implements WorkerProtocol.Command, NoSerializationVerificationNeeded { INSTANCE }

    private record Running(RunEpisode request, ActorRef<EpisodeActor.Command> actor) {}

    private final EpisodeServices services;
    private final EpisodeMeters meters;
    private final String node;
    private final Supplier<Duration> drain;
    private final Map<String, Running> running = new HashMap<>();
    private final Map<ActorRef<Void>, String> episodeOfChild = new HashMap<>();
    /** Episodes answered lately, and to whom. */
    private final Map<String, ActorRef<Trajectory>> recentlyAnswered;
    private long spawned;
    private boolean stopping;
    private Cancellable drainTimer;
    private Duration drainUntil = Duration.ZERO;

    /** A worker outside a sharding region (tests, harnesses): receipts name the node {@code local}. */
    public static Behavior<WorkerProtocol.Command> create(EpisodeServices services, int answeredMemory) {
        return create(services, answeredMemory, "local", () -> Duration.ZERO);
    }

    /**
     * @param node this node's cluster address, named in receipts
     * @param drain how long running episodes may go on once a hand-off begins (zero when no other node could take them)
     */
    public static Behavior<WorkerProtocol.Command> create(EpisodeServices services, int answeredMemory, String node,
                                                          Supplier<Duration> drain) {
        return Behaviors.setup(ctx -> new RolloutWorker(ctx, services, answeredMemory, node, drain));
    }

    private RolloutWorker(ActorContext<WorkerProtocol.Command> context, EpisodeServices services, int answeredMemory,
                          String node, Supplier<Duration> drain) {
        super(context);
        this.services = services;
        this.meters = EpisodeMeters.of(context.getSystem());
        this.node = node;
        this.drain = drain;
        this.recentlyAnswered = new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, ActorRef<Trajectory>> eldest) {
                return size() > answeredMemory;
            }
        };
    }

    @Override
    public Receive<WorkerProtocol.Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(RunEpisode.class, this::onRun)
                .onMessage(CancelEpisode.class, this::onCancel)
                .onMessageEquals(Stop.INSTANCE, this::onStop)
                .onMessageEquals(DrainOver.INSTANCE, this::onDrainOver)
                .onSignal(ChildFailed.class, this::onChildStopped)
                .onSignal(Terminated.class, this::onChildStopped)
                .onSignal(PostStop.class, stop -> {
                    if (drainTimer != null) drainTimer.cancel();
                    return this;
                })
                .build();
    }

    private Behavior<WorkerProtocol.Command> onRun(RunEpisode run) {
        String invalid = run.replyTo() == null ? "no replyTo" : run.episodeId() == null ? "no episodeId"
                : run.task() == null ? "no task" : run.spec() == null ? "no spec" : null;
        if (invalid != null) {
            getContext().getLog().warn("rejecting a RunEpisode with {}: {}", invalid, run);
            if (run.replyTo() != null) {
                meters.finished(StopReason.INVALID_REQUEST);
                run.replyTo().tell(Trajectory.notRun(run.episodeId(), run.groupId(), run.task() == null ? null : run.task().id(),
                        StopReason.INVALID_REQUEST, "RunEpisode has " + invalid));
            }
            return this;
        }
        String id = run.episodeId();
        Running already = running.get(id);
        if (already != null ? already.request().replyTo().equals(run.replyTo()) : run.replyTo().equals(recentlyAnswered.get(id))) {
            getContext().getLog().debug("ignoring duplicate request for episode {}", id);
            if (already != null && run.receipts() != null) run.receipts().tell(new WorkerProtocol.Accepted(id, node));
            return this;
        }
        if (already != null) {
            getContext().getLog().info("episode {} is asked for by a new requester: running it again for that one, from its history", id);
            running.remove(id);
            episodeOfChild.remove(already.actor().<Void>unsafeUpcast());
            getContext().stop(already.actor()); // its requester is gone: it answers nobody
        }
        if (stopping) {
            // Reached the entity just before sharding began buffering for its next incarnation.
            giveBack(run, "the worker is handing off");
            return this;
        }
        ActorRef<EpisodeActor.Command> child =
                getContext().spawn(EpisodeActor.create(run, services, run.replyTo(), meters), "ep-" + (spawned++));
        getContext().watch(child);
        running.put(id, new Running(run, child));
        episodeOfChild.put(child.unsafeUpcast(), id);
        if (run.receipts() != null) run.receipts().tell(new WorkerProtocol.Accepted(id, node));
        return this;
    }

    private Behavior<WorkerProtocol.Command> onCancel(CancelEpisode c) {
        Running r = running.get(c.episodeId());
        if (r != null) r.actor().tell(new EpisodeActor.Cancel(c.reason()));
        return this;
    }

    private Behavior<WorkerProtocol.Command> onChildStopped(Terminated t) {
        String id = episodeOfChild.remove(t.getRef());
        Running r = id == null ? null : running.remove(id);
        if (r != null) {
            recentlyAnswered.put(id, r.request().replyTo());
            // A normal stop comes only after the episode replied; a failure means it never did: answer for it.
            if (t instanceof ChildFailed failed) {
                String why = describe(failed.getCause());
                getContext().getLog().warn("episode {} crashed: {}", id, why);
                RunEpisode req = r.request();
                meters.finished(StopReason.CRASHED);
                req.replyTo().tell(Trajectory.notRun(id, req.groupId(), req.task().id(), StopReason.CRASHED,
                        "episode actor crashed: " + why));
            }
        }
        return stopping && running.isEmpty() ? Behaviors.stopped() : this;
    }

    /**
     * Sharding hands this worker off (rebalance, a node leaving) and force-stops it after its
     * hand-off timeout, which is longer than the drain: running episodes may finish meanwhile.
     */
    private Behavior<WorkerProtocol.Command> onStop() {
        if (running.isEmpty()) return Behaviors.stopped();
        if (!stopping) {
            stopping = true;
            drainUntil = drain.get();
            if (drainUntil.isZero()) return onDrainOver();
            getContext().getLog().info("handing off with {} episodes running: draining for up to {}", running.size(), drainUntil);
            drainTimer = getContext().scheduleOnce(drainUntil, getContext().getSelf(), DrainOver.INSTANCE);
        }
        return this;
    }

    private Behavior<WorkerProtocol.Command> onDrainOver() {
        if (!drainUntil.isZero()) getContext().getLog().info("hand-off drain over: giving back {} running episodes", running.size());
        for (Running r : List.copyOf(running.values())) {
            running.remove(r.request().episodeId());
            episodeOfChild.remove(r.actor().<Void>unsafeUpcast());
            getContext().stop(r.actor()); // stops without answering; the requester hears Released instead
            giveBack(r.request(), drainUntil.isZero() ? "the worker stopped with no other worker node to hand it to"
                    : "the worker's hand-off drain (" + drainUntil + ") ended before the episode did");
        }
        return Behaviors.stopped();
    }

    /** Tells the requester to send the episode again: a receipt when it asked for them, else a CANCELLED answer saying so. */
    private static void giveBack(RunEpisode run, String why) {
        if (run.receipts() != null) {
            run.receipts().tell(new WorkerProtocol.Released(run.episodeId(), why));
        } else {
            run.replyTo().tell(Trajectory.notRun(run.episodeId(), run.groupId(), run.task().id(), StopReason.CANCELLED,
                    why + "; " + WorkerProtocol.GIVEN_BACK));
        }
    }

    private static String describe(Throwable t) {
        return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    }
}
