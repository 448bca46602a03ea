package dev.agentswarm.app;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.protocol.WorkerProtocol;
import dev.agentswarm.workers.EpisodeServices;
import dev.agentswarm.workers.WorkerRegion;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.sharding.typed.ShardingEnvelope;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;

/**
 * One JVM of the swarm: an {@link ActorSystem} named {@code swarm} that is a cluster member, with
 * the {@code worker} region hosted here. The embedded default is a one-node cluster that joins
 * itself, so going multi-node changes configuration (seed nodes, roles), not code.
 */
public final class SwarmNode implements AutoCloseable {

    private final ActorSystem<Void> system;
    private final ActorRef<ShardingEnvelope<WorkerProtocol.Command>> region;

    private SwarmNode(ActorSystem<Void> system, ActorRef<ShardingEnvelope<WorkerProtocol.Command>> region) {
        this.system = system;
        this.region = region;
    }

    /**
     * Loads the configuration: system properties over the user's file (if any) over the node
     * defaults ({@code swarm-node.conf}) over every module's {@code reference.conf}.
     */
    public static Config loadConfig(Path userFile) {
        return loadConfig(userFile, ConfigFactory.empty());
    }

    /** The same, with {@code defaults} (a command's own settings) between the user's file and the node's. */
    public static Config loadConfig(Path userFile, Config defaults) {
        Config base = defaults.withFallback(ConfigFactory.parseResources("swarm-node.conf")).withFallback(ConfigFactory.load());
        Config user = ConfigFactory.empty();
        if (userFile != null) {
            if (!Files.isRegularFile(userFile)) throw new IllegalArgumentException("config file " + userFile + " does not exist");
            user = ConfigFactory.parseFile(userFile.toFile());
        }
        // -Dkey=value wins over everything, as users of Typesafe Config expect.
        return ConfigFactory.systemProperties().withFallback(user).withFallback(base).resolve();
    }

    /** Starts a node that joins itself and hosts workers with {@code services}; waits until it is Up. */
    public static SwarmNode startEmbedded(Config config, EpisodeServices services) throws TimeoutException {
        return start(config, services, null);
    }

    /**
     * Starts a node that joins the cluster of {@code seed} (itself when null) and hosts workers
     * with {@code services}; waits until it is Up.
     */
    public static SwarmNode start(Config config, EpisodeServices services, Address seed) throws TimeoutException {
        return start(config, system -> services, seed);
    }

    /**
     * As {@link #start(Config, EpisodeServices, Address)}, with services that need the node's actor
     * system (the embedded policy spawns its policy server there).
     */
    public static SwarmNode start(Config config, java.util.function.Function<ActorSystem<Void>, EpisodeServices> services,
                                  Address seed) throws TimeoutException {
        ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "swarm", config);
        try {
            Cluster cluster = Cluster.get(system);
            cluster.manager().tell(Join.create(seed != null ? seed : cluster.selfMember().address()));
            awaitUp(cluster, Duration.ofSeconds(30));
            return new SwarmNode(system, WorkerRegion.init(system, services.apply(system)));
        } catch (TimeoutException | RuntimeException e) {
            system.terminate();
            throw e;
        }
    }

    private static void awaitUp(Cluster cluster, Duration limit) throws TimeoutException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (cluster.selfMember().status() != MemberStatus.up()) {
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("the node did not become Up within " + limit.toSeconds()
                        + " s (status " + cluster.selfMember().status() + ")");
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new TimeoutException("interrupted while joining the cluster");
            }
        }
    }

    /** This node's cluster address, for others to join. */
    public Address address() {
        return Cluster.get(system).selfMember().address();
    }

    public ActorSystem<Void> system() {
        return system;
    }

    public ActorRef<ShardingEnvelope<WorkerProtocol.Command>> workerRegion() {
        return region;
    }

    public int workerEntities() {
        return system.settings().config().getInt("agentswarm.worker.entities");
    }

    @Override
    public void close() {
        system.terminate();
        try {
            system.getWhenTerminated().toCompletableFuture().get();
        } catch (Exception e) {
            // shutting down anyway
        }
    }
}
