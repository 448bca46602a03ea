package dev.agentswarm.orchestrator.swarm;

import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
import dev.agentswarm.core.protocol.WorkerProtocol;
import dev.agentswarm.core.protocol.WorkerProtocol.CancelEpisode;
import dev.agentswarm.core.protocol.WorkerProtocol.RunEpisode;
import dev.agentswarm.orchestrator.WorkerRoute;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * Training the orchestrator (PARL): it speaks the worker region's protocol, so a rollout coordinator
 * sends it episodes as it would to the workers, and each {@link RunEpisode} becomes a whole swarm on
 * the task. The reply is the root orchestrator's trajectory — the only agent that learns; sub-agents'
 * outputs were its observations — under the requested id, its reward the PARL reward: the suite's
 * outcome plus the annealed parallel and finish terms, annealed by the policy version that sampled it
 * (one version per learner update).
 */
public final class SwarmEpisodes extends AbstractBehavior<WorkerProtocol.Command> {

    private record Swarm(RunEpisode request, ActorRef<Orchestrator.Command> orchestrator) {}

    private record Finished(SwarmResult result) implements WorkerProtocol.Command, NoSerializationVerificationNeeded {}

    private final SwarmSettings settings;
    private final WorkerRoute workers;
    private final Map<String, Swarm> running = new HashMap<>();
    /** One adapter for every swarm (an actor has one per message class): the result names its run. */
    private final ActorRef<SwarmResult> results;

    public static Behavior<WorkerProtocol.Command> create(SwarmSettings settings, WorkerRoute workers) {
        return Behaviors.setup(ctx -> new SwarmEpisodes(ctx, settings, workers));
    }

    private SwarmEpisodes(ActorContext<WorkerProtocol.Command> ctx, SwarmSettings settings, WorkerRoute workers) {
        super(ctx);
        this.settings = settings;
        this.workers = workers;
        this.results = ctx.messageAdapter(SwarmResult.class, Finished::new);
    }

    @Override
    public Receive<WorkerProtocol.Command> createReceive() {
        return newReceiveBuilder().onAnyMessage(this::onCommand).build();
    }

    private Behavior<WorkerProtocol.Command> onCommand(WorkerProtocol.Command command) {
        if (command instanceof RunEpisode run) {
            if (running.containsKey(run.episodeId())) return this; // a re-send: the swarm is on it
            ActorRef<Orchestrator.Command> orchestrator = getContext().spawnAnonymous(Orchestrator.create(settings,
                    Orchestrator.Place.root(run.episodeId()), run.task(), workers, SwarmTrace.none(), results));
            running.put(run.episodeId(), new Swarm(run, orchestrator));
        } else if (command instanceof CancelEpisode cancel) {
            Swarm s = running.get(cancel.episodeId());
            if (s != null) s.orchestrator().tell(new Orchestrator.Cancel(cancel.reason()));
        } else if (command instanceof Finished f) {
            Swarm s = running.remove(Orchestrator.runIdOf(f.result().orchestrator().episodeId()));
            if (s != null) s.request().replyTo().tell(asEpisode(s.request(), f.result(), settings.parl()));
        }
        return this;
    }

    /** The orchestrator's trajectory under the requested ids, with the suite's reward components and PARL's on top. */
    static Trajectory asEpisode(RunEpisode request, SwarmResult result, SwarmSettings.Parl parl) {
        Trajectory t = result.orchestrator();
        if (t.infraFailure() != null) { // the orchestrator's own episode failed under it: no reward, PARL's included
            return new Trajectory(request.episodeId(), request.groupId(), request.task().id(), t.prompt(), t.turns(), t.finalAnswer(),
                    t.stopReason(), t.error(), t.stats(), null, t.infraFailure());
        }
        long version = t.turns().stream().filter(Turn::isAssistant).mapToLong(Turn::policyVersion).filter(v -> v >= 0).min().orElse(0);
        RewardBreakdown shaped = ParlReward.of(result, ParlReward.perf(request.task(), result), version, parl);
        Map<String, Double> components = new LinkedHashMap<>();
        if (t.reward() != null) components.putAll(t.reward().components());
        components.putAll(shaped.components());
        return new Trajectory(request.episodeId(), request.groupId(), request.task().id(), t.prompt(), t.turns(), t.finalAnswer(),
                t.stopReason(), t.error(), t.stats(), new RewardBreakdown(components, shaped.total()));
    }
}
