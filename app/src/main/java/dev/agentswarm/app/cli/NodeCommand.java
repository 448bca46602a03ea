package dev.agentswarm.app.cli;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import dev.agentswarm.app.ClusterLog;
import dev.agentswarm.app.ClusterTransport;
import dev.agentswarm.app.EpisodeRuns;
import dev.agentswarm.app.JournalDatabase;
import dev.agentswarm.app.SwarmNode;
import dev.agentswarm.app.TrainingRuns;
import dev.agentswarm.app.metrics.NodeReadiness;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.environments.SuiteCatalog;
import dev.agentswarm.environments.Suites;
import dev.agentswarm.workers.EmbeddedPolicy;
import dev.agentswarm.workers.EpisodeServices;
import dev.agentswarm.workers.WorkerRegion;
import dev.agentswarm.policy.openai.OpenAiCompatiblePolicy;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.Props;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "node", mixinStandardHelpOptions = true,
        description = {"Start a long-running cluster member that serves until stopped (SIGTERM leaves the cluster cleanly,",
                "handing its workers to the other nodes after they drain). The first node needs no --seed; the others join it.",
                "A worker node runs episodes with its own policy (the embedded model unless --endpoint or --script) and tools.",
                "Every member is trusted with what the cluster does: on an address other machines reach, a node speaks TLS",
                "(--config conf/cluster-tls.conf) or refuses to start (--insecure-cluster: a trusted network only).",
                "  swarm node --roles worker --port 2551",
                "  swarm node --roles worker --seed pekko://swarm@127.0.0.1:2551",
                "  swarm node --roles orchestrator,worker --seed pekko://swarm@127.0.0.1:2551 --config conf/persistence-postgres.conf",
                "  swarm run \"a task\" --join pekko://swarm@127.0.0.1:2551     (the swarm runs on an orchestrator node)",
                "  swarm eval --suite arithmetic --join pekko://swarm@127.0.0.1:2551",
                "  swarm node --roles worker --metrics-port 9464     (Prometheus GET /metrics, and /alive, /ready for probes)"})
public final class NodeCommand implements Callable<Integer> {

    /** The readiness check of an orchestrator node: its journal database's tables are there and right. */
    static final String JOURNAL_READY = "journal";

    static final Set<String> ROLES = Set.of(SwarmNode.ORCHESTRATOR_ROLE, WorkerRegion.ROLE, SwarmNode.LEARNER_ROLE);

    /** The first port of a cluster whose first node is started without --port: the one others name as --seed. */
    static final int DEFAULT_SEED_PORT = 2551;

    @Option(names = "--roles", split = ",", defaultValue = "worker",
            description = "What this node does: worker, learner, orchestrator, or several (default ${DEFAULT-VALUE}).")
    List<String> roles;

    @Option(names = "--seed", paramLabel = "pekko://swarm@HOST:PORT", description = "A running node to join (none: start a new cluster).")
    String seed;

    @Option(names = "--port", description = "The port this node listens on (default " + DEFAULT_SEED_PORT
            + " for the first node, any free port with --seed).")
    Integer port;

    @Option(names = "--host", defaultValue = "127.0.0.1",
            description = {"The address other nodes reach this one at (default ${DEFAULT-VALUE}). Any address but a loopback",
                    "one needs TLS (--config conf/cluster-tls.conf) or --insecure-cluster."})
    String host;

    @Option(names = "--insecure-cluster",
            description = {"Allow plain TCP on a non-loopback --host: anyone who reaches the port can join the cluster and use it.",
                    "Only for a network you trust entirely; prefer TLS."})
    boolean insecureCluster;

    @Option(names = "--config", paramLabel = "FILE", description = "HOCON file overriding the defaults (e.g. conf/cluster-tls.conf).")
    Path config;

    @Option(names = "--members-file", paramLabel = "FILE",
            description = "Keep the cluster's membership as this node sees it in FILE, rewritten on every change (bin/swarm-cluster status).")
    Path membersFile;

    @Option(names = "--data-dir", paramLabel = "DIR",
            description = {"An orchestrator node's folder: the traces of the swarms it runs, and their H2 journal when no shared",
                    "database is configured (default runs/node-PORT)."})
    Path dataDir;

    @Option(names = "--runs-dir", paramLabel = "DIR",
            description = {"A learner node's folder of training runs (default runs): it opens only run folders inside it, as",
                    "jobs name them (on storage every learner node reads at the same path)."})
    Path runsDir;

    @Mixin
    PolicyOptions policyOptions;

    @Mixin
    MetricsOptions metrics;

    @Override
    public Integer call() throws Exception {
        Set<String> wanted = new LinkedHashSet<>(roles);
        for (String r : wanted) {
            if (!ROLES.contains(r)) throw new IllegalArgumentException("unknown role '" + r + "' (known: orchestrator, worker, learner)");
        }
        Address seedAddress = seed == null ? null : SwarmNode.parseAddress(seed);
        int listen = port != null ? port : seed == null ? DEFAULT_SEED_PORT : 0;
        boolean orchestrator = wanted.contains(SwarmNode.ORCHESTRATOR_ROLE);
        if (orchestrator && listen == 0) listen = freePort(); // the data folder is named after the port, known before the start
        Config cfg = metrics.apply(SwarmNode.loadConfig(config))
                .withValue("pekko.cluster.roles", ConfigValueFactory.fromIterable(List.copyOf(wanted)))
                .withValue("pekko.remote.artery.canonical.hostname", ConfigValueFactory.fromAnyRef(host))
                .withValue("pekko.remote.artery.canonical.port", ConfigValueFactory.fromAnyRef(listen));
        if (runsDir != null) {
            cfg = cfg.withValue(TrainingRuns.RUNS_KEY, ConfigValueFactory.fromAnyRef(runsDir.toAbsolutePath().toString()));
        }
        if (insecureCluster) cfg = cfg.withValue("agentswarm.node.insecure-cluster", ConfigValueFactory.fromAnyRef(true));
        ClusterTransport.check(cfg); // before the journal database or anything else is touched
        String swarms = null;
        if (orchestrator) {
            // The cluster's swarms may be placed here: they journal (the shared database, or H2 in the data folder) and trace here.
            Path data = dataDir != null ? dataDir : Path.of("runs", "node-" + listen);
            cfg = JournalDatabase.settings(cfg, data).withValue("agentswarm.node.swarms-dir",
                    ConfigValueFactory.fromAnyRef(data.resolve("swarms").toAbsolutePath().toString()));
            JournalDatabase.check(cfg);
            // Not ready for swarms until the journal's tables are checked, after the start (they need the actor system).
            cfg = cfg.withValue("agentswarm.node.ready-after", ConfigValueFactory.fromIterable(List.of(JOURNAL_READY)));
            swarms = "swarms journal to " + JournalDatabase.redactedUrl(cfg) + (JournalDatabase.kind(cfg) == JournalDatabase.Kind.H2
                    ? " (this node's own: its swarms go on when it restarts with the same --data-dir, and move to another node only"
                    + " with a shared database, e.g. --config conf/persistence-postgres.conf)" : "") + "; traces in " + data.resolve("swarms");
        }
        boolean worker = wanted.contains(WorkerRegion.ROLE);
        PrintStream out = System.out;
        String[] policyName = {"none"};
        Config nodeConfig = cfg;
        SwarmNode node = SwarmNode.start(cfg, system -> {
            Policy policy = policy(system, nodeConfig);
            policyName[0] = policy.describe();
            Suites suites = SuiteCatalog.fromConfig(nodeConfig, OpenAiCompatiblePolicy::connect);
            return new EpisodeServices(policy, EpisodeRuns.nodeTools(nodeConfig, suites), suites);
        }, seedAddress);
        if (orchestrator) {
            JournalDatabase.createSchema(node.system(), cfg);
            NodeReadiness.get(node.system()).done(JOURNAL_READY);
        }
        node.system().systemActorOf(ClusterLog.create(line -> {
            out.println(line);
            out.flush();
        }, membersFile), "cluster-log", Props.empty());
        out.println("node up: " + node.address() + " roles " + List.copyOf(wanted) + (worker ? " policy " + policyName[0] : "")
                + (seed == null ? " (a new cluster: others join with --seed " + node.address() + ")" : ""));
        if (swarms != null) out.println(swarms);
        out.flush();
        node.system().getWhenTerminated().toCompletableFuture().join();
        out.println("node stopped: " + node.address());
        out.flush();
        return 0;
    }

    private static int freePort() throws java.io.IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private Policy policy(org.apache.pekko.actor.typed.ActorSystem<Void> system, Config cfg) {
        if (policyOptions.oracle()) throw new IllegalArgumentException("--policy oracle belongs to swarm eval, not to a node");
        if (policyOptions.latencyMs != 0 && policyOptions.script == null) {
            throw new IllegalArgumentException("--latency-ms applies to a --script policy");
        }
        if (policyOptions.endpoint != null || policyOptions.script != null) return policyOptions.create(cfg);
        // The default policy of a worker node is the embedded model.
        return EmbeddedPolicy.spawn(system, policyOptions.embeddedConfig(cfg));
    }
}
