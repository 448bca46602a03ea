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
import com.typesafe.config.ConfigValueFactory;
import java.util.List;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.AddressFromURIString;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.typed.JoinSeedNodes;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import dev.agentswarm.core.protocol.LearnerProtocol;
import dev.agentswarm.core.protocol.WeightsProtocol;
import dev.agentswarm.learner.Learner;
import dev.agentswarm.orchestrator.WorkerRoute;
import dev.agentswarm.orchestrator.swarm.SwarmEntity;
import dev.agentswarm.workers.AnswerRelay;
import dev.agentswarm.workers.EmbeddedPolicy;
import dev.agentswarm.learner.WeightsSource;
import dev.agentswarm.app.metrics.ClusterMeters;
import dev.agentswarm.app.metrics.HttpSettings;
import dev.agentswarm.app.metrics.NodeHttpServer;
import dev.agentswarm.app.metrics.NodeReadiness;
import dev.agentswarm.core.metrics.NodeMetrics;
import dev.agentswarm.workers.SandboxPool;
import java.util.Optional;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.typed.ClusterSingleton;
import org.apache.pekko.cluster.typed.ClusterSingletonSettings;
import org.apache.pekko.cluster.typed.SingletonActor;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.sharding.typed.ShardingEnvelope;
import org.apache.pekko.cluster.typed.Cluster;
import org.slf4j.LoggerFactory;

/**
 * One JVM of the swarm: an {@link ActorSystem} named {@code swarm} that is a cluster member with
 * roles ({@code orchestrator}, {@code worker}, {@code learner}), hosting the {@code worker} region
 * when it has that role. The embedded default is a one-node cluster with every role that joins
 * itself, so going multi-node changes configuration (a seed, roles), not code.
 */
public final class SwarmNode implements AutoCloseable {

    /** Every node's actor system name: addresses are {@code pekko://swarm@HOST:PORT}. */
    public static final String SYSTEM_NAME = "swarm";

    public static final String ORCHESTRATOR_ROLE = "orchestrator";
    public static final String LEARNER_ROLE = "learner";
    /** A job's node ({@code --join}): runs the job's own coordinator and leaves with it; hosts nothing of the cluster's. */
    public static final String JOB_ROLE = "job";

    private final ActorSystem<Void> system;
    private final ActorRef<ShardingEnvelope<WorkerProtocol.Command>> region;
    private final ActorRef<LearnerProtocol.Command> learner;
    private final ActorRef<WeightsProtocol.SourceCommand> weightsSource;
    private final ActorRef<ShardingEnvelope<SwarmEntity.Command>> swarms;
    private final Optional<NodeHttpServer> http;

    /** Readiness checks of every node ({@link NodeReadiness}); {@code agentswarm.node.ready-after} names a command's own. */
    public static final String READY_CLUSTER = "cluster";
    public static final String READY_START = "start";
    public static final String READY_POLICY_SERVER = "policy-server";
    public static final String READY_WORKER_REGION = "worker-region";

    private SwarmNode(ActorSystem<Void> system, ActorRef<ShardingEnvelope<WorkerProtocol.Command>> region,
                      ActorRef<LearnerProtocol.Command> learner, ActorRef<WeightsProtocol.SourceCommand> weightsSource,
                      ActorRef<ShardingEnvelope<SwarmEntity.Command>> swarms, Optional<NodeHttpServer> http) {
        this.http = http;
        this.system = system;
        this.region = region;
        this.learner = learner;
        this.weightsSource = weightsSource;
        this.swarms = swarms;
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
     * system (the embedded policy spawns its policy server there). Roles come from
     * {@code pekko.cluster.roles}: a node with the {@value WorkerRegion#ROLE} role hosts workers
     * built with {@code services}; any other only sends to the cluster's workers ({@code services}
     * is not called).
     */
    public static SwarmNode start(Config config, java.util.function.Function<ActorSystem<Void>, EpisodeServices> services,
                                  Address seed) throws TimeoutException {
        HttpSettings.fromConfig(config); // bad endpoint settings fail before anything starts
        // A node others can reach talks TLS, or says loudly that it does not; refused before anything binds.
        String insecure = ClusterTransport.check(config);
        if (insecure != null) {
            System.err.println(insecure);
            LoggerFactory.getLogger(SwarmNode.class).warn(insecure);
        }
        ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), SYSTEM_NAME, config);
        try {
            Cluster cluster = Cluster.get(system);
            // Not ready until the start below is done and while the membership is not Up (joining, leaving).
            NodeReadiness readiness = NodeReadiness.get(system);
            readiness.expect(READY_START, "the node is starting");
            for (String check : config.getStringList("agentswarm.node.ready-after")) readiness.expect(check, "not done yet by the node's command (agentswarm.node.ready-after)");
            readiness.require(READY_CLUSTER, () -> membershipProblem(cluster));
            // Served from the start, so an orchestrator sees /alive and a 503 from /ready while the node joins; and before
            // any meter is registered, so the Prometheus registry sees every recording.
            Optional<NodeHttpServer> http = NodeHttpServer.startIfEnabled(system);
            if (config.getBoolean("agentswarm.http.on-api")) dev.agentswarm.app.metrics.PrometheusExposition.of(system);
            http.ifPresent(h -> System.err.println("node endpoints: " + h.url("/metrics") + ", " + h.url("/alive") + ", " + h.url("/ready")));
            ClusterMeters.bind(system);
            // JoinSeedNodes keeps trying until the seed answers (a node started before its seed still joins).
            cluster.manager().tell(new JoinSeedNodes(List.of(seed != null ? seed : cluster.selfMember().address())));
            awaitUp(cluster, config.getDuration("agentswarm.node.join-timeout"), seed);
            AnswerRelay.spawn(system); // long episodes' answers from other nodes arrive through it
            // The learner is a cluster singleton on the oldest learner node; every node reaches it through a proxy.
            ActorRef<WeightsProtocol.SourceCommand> source = null;
            Behavior<LearnerProtocol.Command> learnerBehavior = Behaviors.empty();
            if (cluster.selfMember().hasRole(LEARNER_ROLE)) {
                ActorRef<WeightsProtocol.SourceCommand> here = WeightsSource.spawn(system);
                source = here;
                String address = cluster.selfMember().address().toString();
                learnerBehavior = Learner.create(dir -> TrainingRuns.open(dir, config), here, address);
            }
            ActorRef<LearnerProtocol.Command> learner = ClusterSingleton.get(system).init(SingletonActor.of(learnerBehavior, "learner")
                    .withSettings(ClusterSingletonSettings.create(system).withRole(LEARNER_ROLE))
                    .withProps(DispatcherSelector.fromConfig("agentswarm.learner-dispatcher")));
            ActorRef<ShardingEnvelope<WorkerProtocol.Command>> region;
            if (cluster.selfMember().hasRole(WorkerRegion.ROLE)) {
                readiness.expect(READY_WORKER_REGION, "the worker region is not started yet");
                SandboxPool.fromConfig(config).bindTo(NodeMetrics.get(system).registry());
                // The JVM's MCP servers record on this node's registry too, while the node runs.
                var nodeRegistry = NodeMetrics.get(system).registry();
                EpisodeRuns.MCP_METRICS.add(nodeRegistry);
                system.getWhenTerminated().thenRun(() -> EpisodeRuns.MCP_METRICS.remove(nodeRegistry));
                EpisodeServices here = services.apply(system);
                // A node takes no work before it serves the weights the cluster's learner holds now.
                if (here.policy() instanceof EmbeddedPolicy embedded) {
                    readiness.expect(READY_POLICY_SERVER, "the policy server is loading the weights the cluster's learner holds");
                    WeightsGate.awaitCurrent(system, embedded.weights(), countUp(cluster, LEARNER_ROLE),
                            config.getDuration("agentswarm.node.weights-timeout"));
                    readiness.done(READY_POLICY_SERVER);
                }
                region = WorkerRegion.init(system, here);
                readiness.done(READY_WORKER_REGION);
            } else {
                region = WorkerRegion.proxy(system);
            }
            // Swarms of the cluster live on its orchestrator nodes and journal there; a node without the role reaches them.
            ActorRef<ShardingEnvelope<SwarmEntity.Command>> swarms = ClusterSwarms.init(system, config,
                    WorkerRoute.sharded(region, config.getInt("agentswarm.worker.entities")));
            readiness.done(READY_START);
            return new SwarmNode(system, region, learner, source, swarms, http);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            system.terminate();
            throw new TimeoutException("interrupted while starting the node");
        } catch (TimeoutException | RuntimeException e) {
            system.terminate();
            throw e;
        }
    }

    /**
     * A job's node joining a running cluster at {@code seed}: the {@value #JOB_ROLE} role only, so its
     * episodes run on the cluster's worker nodes, and no swarm of the cluster is placed on it. Waits until it is Up and at least one worker
     * node is, and says what to do when there is none.
     */
    public static SwarmNode join(Config config, Address seed) throws TimeoutException {
        Config jobNode = config.withValue("pekko.cluster.roles", ConfigValueFactory.fromIterable(List.of(JOB_ROLE)));
        SwarmNode node = start(jobNode, system -> {
            throw new IllegalStateException("a job's node hosts no workers");
        }, seed);
        try {
            node.awaitWorkers(1, config.getDuration("agentswarm.node.join-timeout"));
        } catch (TimeoutException e) {
            node.close();
            throw new TimeoutException("joined the cluster at " + seed + " but it has no worker node: start one with"
                    + " `swarm node --roles worker --seed " + seed + "` (or bin/swarm-cluster start)");
        }
        return node;
    }

    /**
     * A node in this JVM with every role (services made on its actor system), or, when {@code join}
     * is set, a job's node on the cluster there, whose workers bring their own services.
     */
    public static SwarmNode startOrJoin(Config config, java.util.function.Function<ActorSystem<Void>, EpisodeServices> services,
                                        Address join) throws TimeoutException {
        return join == null ? start(config, services, null) : join(config, join);
    }

    /** Parses a node address such as {@code pekko://swarm@127.0.0.1:2551}, with a clear error for anything else. */
    public static Address parseAddress(String uri) {
        Address a;
        try {
            a = AddressFromURIString.parse(uri.strip());
        } catch (Exception e) { // Scala throws java.net.MalformedURLException undeclared
            throw new IllegalArgumentException("not a cluster node address: '" + uri + "' (expected pekko://" + SYSTEM_NAME + "@HOST:PORT)");
        }
        if (!a.system().equals(SYSTEM_NAME) || a.getHost().isEmpty() || a.getPort().isEmpty()) {
            throw new IllegalArgumentException("not a swarm node address: '" + uri + "' (expected pekko://" + SYSTEM_NAME
                    + "@HOST:PORT; every node's actor system is named " + SYSTEM_NAME + ")");
        }
        return a;
    }

    /** Null while this node is an Up member, else why it takes no work. */
    private static String membershipProblem(Cluster cluster) {
        MemberStatus status = cluster.selfMember().status();
        if (status == MemberStatus.up()) return null;
        if (status == MemberStatus.joining() || status == MemberStatus.weaklyUp()) return "joining the cluster (status " + status + ")";
        return "leaving the cluster (status " + status + ")";
    }

    /** The node's HTTP endpoints ({@code /metrics}, {@code /alive}, {@code /ready}), when {@code agentswarm.http.port} is set. */
    public Optional<NodeHttpServer> httpServer() {
        return http;
    }

    /** Waits until {@code n} members with the worker role are Up. */
    public void awaitWorkers(int n, Duration limit) throws TimeoutException {
        awaitMembers(WorkerRegion.ROLE, n, limit);
    }

    /** Waits until {@code n} members with {@code role} are Up. */
    public void awaitMembers(String role, int n, Duration limit) throws TimeoutException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (upMembers(role) < n) {
            if (System.nanoTime() > deadline) {
                throw new TimeoutException(upMembers(role) + " of " + n + " " + role + " nodes Up after " + limit.toSeconds()
                        + " s: start one with `swarm node --roles " + role + " --seed " + address() + "`");
            }
            sleep();
        }
    }

    /** Members that are Up and have {@code role}. */
    public int upMembers(String role) {
        return countUp(Cluster.get(system), role);
    }

    private static int countUp(Cluster cluster, String role) {
        int n = 0;
        for (Member m : cluster.state().getMembers()) if (m.status() == MemberStatus.up() && m.hasRole(role)) n++;
        return n;
    }

    private static void sleep() throws TimeoutException {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TimeoutException("interrupted while waiting for the cluster");
        }
    }

    private static void awaitUp(Cluster cluster, Duration limit, Address seed) throws TimeoutException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (cluster.selfMember().status() != MemberStatus.up()) {
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("the node did not become Up within " + limit.toSeconds() + " s (status "
                        + cluster.selfMember().status() + ")" + (seed == null ? "" : "; is a node running at " + seed
                        + ", reachable, and using the same transport (TLS or not)?"));
            }
            sleep();
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

    /** The cluster's swarms ({@link SwarmEntity} by run id), hosted here on an orchestrator node. */
    public ActorRef<ShardingEnvelope<SwarmEntity.Command>> swarmRegion() {
        return swarms;
    }

    /** The cluster's learner (a singleton on the oldest learner node), reached from any node. */
    public ActorRef<LearnerProtocol.Command> learner() {
        return learner;
    }

    /** This learner node's weights source (where its learner hands each update), null on a node without the learner role. */
    public ActorRef<WeightsProtocol.SourceCommand> weightsSource() {
        return weightsSource;
    }

    public int workerEntities() {
        return system.settings().config().getInt("agentswarm.worker.entities");
    }

    /**
     * Leaves the cluster (handing this node's workers over) and stops. Bounded: Pekko 1.7.0 can wait
     * forever for a remoting stream while it shuts down (apache/pekko#3247, seen with TLS), and a
     * node that hangs on its way out must not hang its command or a test.
     */
    @Override
    public void close() {
        system.terminate();
        try {
            system.getWhenTerminated().toCompletableFuture().get(SHUTDOWN_LIMIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            LoggerFactory.getLogger(SwarmNode.class).warn("node {} did not finish shutting down within {} s; leaving it",
                    address(), SHUTDOWN_LIMIT.toSeconds());
        } catch (Exception e) {
            // shutting down anyway
        }
    }

    /** Longer than a full graceful leave: the workers' hand-off drain and the shutdown phases after it. */
    private static final Duration SHUTDOWN_LIMIT = Duration.ofSeconds(90);
}
