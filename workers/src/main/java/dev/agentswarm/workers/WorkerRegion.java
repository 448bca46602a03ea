package dev.agentswarm.workers;

import dev.agentswarm.core.protocol.WorkerProtocol;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.ClusterShardingSettings;
import org.apache.pekko.cluster.sharding.typed.ShardingEnvelope;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;

/**
 * The {@code worker} sharding region: {@link RolloutWorker} entities on every node with the
 * worker role. Call {@link #init} once per node; requesters that only send call {@link #proxy}.
 */
public final class WorkerRegion {

    public static final EntityTypeKey<WorkerProtocol.Command> KEY =
            EntityTypeKey.create(WorkerProtocol.Command.class, WorkerProtocol.ENTITY_TYPE);

    public static final String ROLE = "worker";

    private WorkerRegion() {}

    /** Hosts worker entities on this node, built with this node's policy and tools. */
    public static ActorRef<ShardingEnvelope<WorkerProtocol.Command>> init(ActorSystem<?> system, EpisodeServices services) {
        int answeredMemory = system.settings().config().getInt("agentswarm.worker.answered-memory");
        // Workers are a fixed set that may hold long episodes: never passivate them for idleness.
        ClusterShardingSettings settings = ClusterShardingSettings.create(system).withNoPassivationStrategy();
        return ClusterSharding.get(system).init(
                Entity.of(KEY, ctx -> RolloutWorker.create(services, answeredMemory))
                        .withStopMessage(RolloutWorker.Stop.INSTANCE)
                        .withSettings(settings));
    }
}
