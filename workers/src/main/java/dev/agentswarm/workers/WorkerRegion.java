package dev.agentswarm.workers;

import com.typesafe.config.Config;
import dev.agentswarm.core.protocol.WorkerProtocol;
import java.time.Duration;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
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

    /**
     * Hosts worker entities on this node, built with this node's policy and tools. The node must
     * have the {@value #ROLE} role: entities only ever live on such nodes.
     */
    public static ActorRef<ShardingEnvelope<WorkerProtocol.Command>> init(ActorSystem<?> system, EpisodeServices services) {
        Config c = system.settings().config().getConfig("agentswarm.worker");
        int answeredMemory = c.getInt("answered-memory");
        Duration drain = c.getDuration("hand-off-drain");
        Cluster cluster = Cluster.get(system);
        String node = cluster.selfMember().address().toString();
        // Draining helps only when another worker node can take the episodes given back after it.
        Supplier<Duration> drainNow = () -> otherWorkerNodeUp(cluster) ? drain : Duration.ZERO;
        if (!Cluster.get(system).selfMember().hasRole(ROLE)) {
            throw new IllegalStateException("this node has no '" + ROLE + "' role (pekko.cluster.roles = "
                    + Cluster.get(system).selfMember().getRoles() + "): it cannot host workers");
        }
        return ClusterSharding.get(system).init(entity(system, () -> RolloutWorker.create(services, answeredMemory, node, drainNow)));
    }

    /**
     * Sends to the worker entities of the cluster without hosting any: the region of a node without
     * the {@value #ROLE} role (a job's command joining a cluster, an orchestrator-only node).
     */
    public static ActorRef<ShardingEnvelope<WorkerProtocol.Command>> proxy(ActorSystem<?> system) {
        return ClusterSharding.get(system).init(entity(system, () -> {
            throw new IllegalStateException("a worker proxy hosts no workers");
        }));
    }

    private static boolean otherWorkerNodeUp(Cluster cluster) {
        for (Member m : cluster.state().getMembers()) {
            if (m.status() == MemberStatus.up() && m.hasRole(ROLE) && !m.equals(cluster.selfMember())) return true;
        }
        return false;
    }

    private static Entity<WorkerProtocol.Command, ShardingEnvelope<WorkerProtocol.Command>> entity(
            ActorSystem<?> system, Supplier<Behavior<WorkerProtocol.Command>> worker) {
        // Workers are a fixed set that may hold long episodes: never passivate them for idleness.
        ClusterShardingSettings settings = ClusterShardingSettings.create(system).withNoPassivationStrategy();
        return Entity.of(KEY, ctx -> worker.get())
                .withRole(ROLE)
                .withStopMessage(RolloutWorker.Stop.INSTANCE)
                .withSettings(settings);
    }
}
