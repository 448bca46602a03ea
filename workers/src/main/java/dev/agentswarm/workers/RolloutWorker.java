package dev.agentswarm.workers;

import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.WorkerProtocol;
import dev.agentswarm.core.protocol.WorkerProtocol.CancelEpisode;
import dev.agentswarm.core.protocol.WorkerProtocol.RunEpisode;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
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
 * a coordinator may re-send after a node loss without getting two answers.
 */
public final class RolloutWorker extends AbstractBehavior<WorkerProtocol.Command> {

    /** Sent by sharding before a hand-off: stop once the running episodes are answered. */
    public enum Stop implements WorkerProtocol.Command, NoSerializationVerificationNeeded { INSTANCE }

    private record Running(RunEpisode request, ActorRef<EpisodeActor.Command> actor) {}

    private final EpisodeServices services;
    private final Map<String, Running> running = new HashMap<>();
    private final Map<ActorRef<Void>, String> episodeOfChild = new HashMap<>();
    private final Map<String, Boolean> recentlyAnswered;
    private long spawned;
    private boolean stopping;

    public static Behavior<WorkerProtocol.Command> create(EpisodeServices services, int answeredMemory) {
        return Behaviors.setup(ctx -> new RolloutWorker(ctx, services, answeredMemory));
    }

    private RolloutWorker(ActorContext<WorkerProtocol.Command> context, EpisodeServices services, int answeredMemory) {
        super(context);
        this.services = services;
        this.recentlyAnswered = new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
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
                .onSignal(ChildFailed.class, this::onChildStopped)
                .onSignal(Terminated.class, this::onChildStopped)
                .build();
    }

    private Behavior<WorkerProtocol.Command> onRun(RunEpisode run) {
        String invalid = run.replyTo() == null ? "no replyTo" : run.episodeId() == null ? "no episodeId"
                : run.task() == null ? "no task" : run.spec() == null ? "no spec" : null;
        if (invalid != null) {
            getContext().getLog().warn("rejecting a RunEpisode with {}: {}", invalid, run);
            if (run.replyTo() != null) {
                run.replyTo().tell(Trajectory.notRun(run.episodeId(), run.groupId(), run.task() == null ? null : run.task().id(),
                        StopReason.INVALID_REQUEST, "RunEpisode has " + invalid));
            }
            return this;
        }
        if (stopping) {
            // Handing off: the request waits in sharding's buffer and reaches the entity's next incarnation.
            run.replyTo().tell(Trajectory.notRun(run.episodeId(), run.groupId(), run.task().id(),
                    StopReason.CANCELLED, "the worker is handing off; send the episode again"));
            return this;
        }
        String id = run.episodeId();
        if (running.containsKey(id) || recentlyAnswered.containsKey(id)) {
            getContext().getLog().debug("ignoring duplicate request for episode {}", id);
            return this;
        }
        ActorRef<EpisodeActor.Command> child =
                getContext().spawn(EpisodeActor.create(run, services, run.replyTo()), "ep-" + (spawned++));
        getContext().watch(child);
        running.put(id, new Running(run, child));
        episodeOfChild.put(child.unsafeUpcast(), id);
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
            recentlyAnswered.put(id, Boolean.TRUE);
            // A normal stop comes only after the episode replied; a failure means it never did: answer for it.
            if (t instanceof ChildFailed failed) {
                String why = describe(failed.getCause());
                getContext().getLog().warn("episode {} crashed: {}", id, why);
                RunEpisode req = r.request();
                req.replyTo().tell(Trajectory.notRun(id, req.groupId(), req.task().id(), StopReason.CRASHED,
                        "episode actor crashed: " + why));
            }
        }
        return stopping && running.isEmpty() ? Behaviors.stopped() : this;
    }

    /**
     * Sharding hands this worker off (rebalance, shutdown) and force-stops it after its hand-off
     * timeout, which is shorter than an episode may run: so running episodes are cancelled now and
     * answer CANCELLED with what they did, instead of vanishing. The requester can send them again.
     */
    private Behavior<WorkerProtocol.Command> onStop() {
        if (running.isEmpty()) return Behaviors.stopped();
        stopping = true;
        for (Running r : running.values()) r.actor().tell(new EpisodeActor.Cancel("worker hand-off"));
        return this;
    }

    private static String describe(Throwable t) {
        return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    }
}
