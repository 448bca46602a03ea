package dev.agentswarm.app.bench;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import dev.agentswarm.app.BatchRunner;
import dev.agentswarm.app.EpisodeRuns;
import dev.agentswarm.app.NodeProcess;
import dev.agentswarm.app.SwarmNode;
import dev.agentswarm.app.cli.Report;
import dev.agentswarm.core.json.MetricsLog;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.core.protocol.LearnerProtocol;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
import dev.agentswarm.core.protocol.WorkerProtocol;
import dev.agentswarm.orchestrator.RolloutCoordinator;
import dev.agentswarm.orchestrator.WorkerRoute;
import dev.agentswarm.workers.WorkerRegion;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;

/**
 * The cluster's figures, with real worker processes started on this machine: throughput with 1, 2
 * and 3 worker JVMs on a latency-bound scripted model, recovery from a SIGKILL of a worker JVM
 * mid-run (lost and duplicated episodes must be 0), and how many episodes per second one rollout
 * coordinator dispatches and records when several simulated worker nodes answer at once.
 */
public final class ClusterBenchmark {

    /**
     * @param workers worker JVM counts to measure throughput with
     * @param inflightPerNode episodes in flight per worker node
     * @param turns policy turns per episode (the last answers)
     * @param latencyMs the scripted model's latency per turn
     * @param roundsPerNode measured episodes per node, in multiples of {@code inflightPerNode}
     * @param recoveryEpisodes episodes in flight when a worker JVM is killed (0: skip)
     * @param simulatedNodes worker nodes answering at once for the coordinator's figure (0: skip)
     * @param coordinatorEpisodes episodes the coordinator dispatches and records
     * @param cpuBound also measure the worker counts with a model that answers at once (cores, not latency, bound), once
     *     the worker JVMs are warm and in their first episodes
     * @param weightRounds publish → served rounds of 10 MB and 100 MB to 2 worker nodes (0: skip)
     */
    public record Settings(List<Integer> workers, int inflightPerNode, int turns, long latencyMs, int roundsPerNode, int recoveryEpisodes,
                           int simulatedNodes, int coordinatorEpisodes, boolean cpuBound, int weightRounds) {
        public Settings {
            if (inflightPerNode < 1 || turns < 1 || latencyMs < 0 || roundsPerNode < 1 || recoveryEpisodes < 0 || simulatedNodes < 0
                    || coordinatorEpisodes < 0) {
                throw new IllegalArgumentException("need inflight >= 1, turns >= 1, latency >= 0, rounds >= 1, counts >= 0");
            }
            for (int n : workers) if (n < 1) throw new IllegalArgumentException("worker counts must be >= 1, got " + n);
        }
    }

    private static final String SIMULATED = "simulated";
    private static final org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey<WorkerProtocol.Command> INSTANT_WORKER =
            org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey.create(WorkerProtocol.Command.class, "bench-instant-worker");

    private static final List<String> WORKER_JVM = List.of("-Xmx768m", "-XX:+UseParallelGC");

    /**
     * The CPU-bound series' warm-up and measurement run in chunks of this many episodes per worker JVM: each chunk's
     * trajectories are dropped before the next, so the bench's heap holds one chunk at a time.
     */
    private static final int STEADY_CHUNK_PER_WORKER = 10_000;
    private static final int STEADY_MIN_WARMUP_CHUNKS = 12;
    private static final int STEADY_MEASURED_CHUNKS = 5;
    private static final Duration STEADY_WARMUP_LIMIT = Duration.ofMinutes(3);

    private ClusterBenchmark() {}

    public static Map<String, Object> run(Settings s, Consumer<String> log) throws Exception {
        Map<String, Object> f = new LinkedHashMap<>();
        Path dir = Files.createTempDirectory("bench-cluster");
        try {
            Path script = script(dir, s.turns());
            Map<String, Double> byWorkers = new LinkedHashMap<>();
            for (int n : s.workers()) {
                double eps = throughput(n, s, script, false, log).cold();
                byWorkers.put(String.valueOf(n), Report.round(eps, 1));
                log.accept(String.format("%d worker JVMs: %.0f episodes/s (ideal %.0f)", n, eps, ideal(n, s)));
            }
            f.put("episodes_per_s_by_workers", byWorkers);
            f.put("ideal_episodes_per_s_per_worker", Report.round(ideal(1, s), 1));
            f.put("inflight_per_worker", s.inflightPerNode());
            f.put("turns", s.turns());
            f.put("latency_ms", s.latencyMs());
            if (s.cpuBound()) {
                // No model latency: every worker JVM is busy running episodes, and they share this machine's cores.
                Settings busy = new Settings(s.workers(), 100, s.turns(), 0, 20, 0, 0, 0, false, 0);
                Map<String, Double> steady = new LinkedHashMap<>();
                Map<String, Double> cold = new LinkedHashMap<>();
                Map<String, Double> warmup = new LinkedHashMap<>();
                for (int n : s.workers()) {
                    Rates r = throughput(n, busy, script, true, log);
                    steady.put(String.valueOf(n), Report.round(r.steady(), 1));
                    cold.put(String.valueOf(n), Report.round(r.cold(), 1));
                    warmup.put(String.valueOf(n), Report.round(r.warmupSeconds(), 1));
                    log.accept(String.format("%d worker JVMs, model answering at once: %.0f episodes/s once warm (%.0f s of warm-up),"
                            + " %.0f in their first %d episodes", n, r.steady(), r.warmupSeconds(), r.cold(), n * busy.inflightPerNode()
                            * busy.roundsPerNode()));
                }
                f.put("episodes_per_s_by_workers_cpu_bound", steady);
                f.put("episodes_per_s_by_workers_cpu_bound_cold", cold);
                f.put("cpu_bound_warmup_s", warmup);
                f.put("cores", Runtime.getRuntime().availableProcessors());
            }
            if (s.recoveryEpisodes() > 0) f.putAll(recovery(s, script, log));
            if (s.simulatedNodes() > 0) f.putAll(coordinator(s, dir, log));
            if (s.weightRounds() > 0) f.putAll(WeightsBenchmark.figures(SwarmNode.loadConfig(null), 2, s.weightRounds(), log));
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        return f;
    }

    private static double ideal(int nodes, Settings s) {
        return nodes * s.inflightPerNode() / (s.turns() * s.latencyMs() / 1000.0);
    }

    /** Turns 1..T-1 call the calculator, turn T answers. */
    private static Path script(Path dir, int turns) throws java.io.IOException {
        List<String> replies = new ArrayList<>();
        for (int t = 1; t < turns; t++) replies.add("<tool_call>{\"name\": \"calculator\", \"arguments\": {\"expression\": \"6 * " + t + "\"}}</tool_call>");
        replies.add("The answer is 42.");
        Path p = dir.resolve("script.txt");
        Files.writeString(p, String.join("\n---\n", replies) + "\n");
        return p;
    }

    /** The bench's own JVM as the orchestrator node that starts a cluster the worker JVMs join. */
    private static SwarmNode orchestrator() throws Exception {
        Config cfg = SwarmNode.loadConfig(null)
                .withValue("pekko.cluster.roles", ConfigValueFactory.fromIterable(List.of(SwarmNode.ORCHESTRATOR_ROLE)));
        return SwarmNode.start(cfg, system -> {
            throw new IllegalStateException("the bench's node hosts no workers");
        }, null);
    }

    private static List<NodeProcess> startWorkers(int n, SwarmNode seed, Settings s, Path script, Consumer<String> log) throws Exception {
        List<NodeProcess> workers = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                workers.add(NodeProcess.start(WORKER_JVM, List.of("--roles", "worker", "--seed", seed.address().toString(), "--script",
                        script.toString(), "--latency-ms", String.valueOf(s.latencyMs())), null));
            }
            for (NodeProcess w : workers) w.awaitUp(Duration.ofSeconds(120));
            seed.awaitWorkers(n, Duration.ofSeconds(60));
            return workers;
        } catch (Exception e) {
            for (NodeProcess w : workers) w.close();
            throw e;
        }
    }

    private static List<BatchRunner.Job> jobs(String prefix, int n, EpisodeSpec spec) {
        List<BatchRunner.Job> jobs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) jobs.add(new BatchRunner.Job(prefix + i, prefix + i, Task.of("t" + i, "What is 6 * 7?"), spec));
        return jobs;
    }

    private static EpisodeSpec spec(Config cfg, int turns) {
        return EpisodeSpec.fromConfig(cfg.getConfig("agentswarm.episode")).withTools(List.of("calculator"))
                .withLimits(turns + 1, 1_000_000, 1_000_000, TimeUnit.MINUTES.toMillis(10), 30_000);
    }

    /**
     * Episodes/s of one cluster of worker JVMs: {@code cold} in the first episodes after they start, and, when asked,
     * {@code steady} once they are warm, with the seconds that warm-up took.
     */
    private record Rates(double cold, double steady, double warmupSeconds) {}

    private static Rates throughput(int n, Settings s, Path script, boolean steady, Consumer<String> log) throws Exception {
        try (SwarmNode node = orchestrator()) {
            List<NodeProcess> workers = startWorkers(n, node, s, script, log);
            try {
                EpisodeSpec spec = spec(node.system().settings().config(), s.turns());
                int inflight = n * s.inflightPerNode();
                EpisodeRuns.runAll(node, jobs("warm-", inflight * 2, spec), inflight, t -> {}); // every worker placed, every path loaded
                int episodes = inflight * s.roundsPerNode();
                double cold = episodes / seconds(node, "e-", episodes, inflight, spec);
                if (!steady) return new Rates(cold, Double.NaN, 0);
                // A fresh JVM interprets, then JIT-compiles, Pekko's, Jackson's and the episode's hot paths for its first
                // ~150,000 episodes (~20 s of C2 on 2 cores), at tens of times the CPU per episode of a warm one: run at least
                // STEADY_MIN_WARMUP_CHUNKS chunks, and on until three in a row no longer beat the best by 5 %, then measure.
                int chunk = n * STEADY_CHUNK_PER_WORKER;
                long warmStart = System.nanoTime();
                long warmLimit = warmStart + STEADY_WARMUP_LIMIT.toNanos();
                double best = 0;
                int flat = 0;
                List<String> warming = new ArrayList<>();
                for (int c = 0; (c < STEADY_MIN_WARMUP_CHUNKS || flat < 3) && System.nanoTime() < warmLimit; c++) {
                    double eps = chunk / seconds(node, "w" + c + "-", chunk, inflight, spec);
                    warming.add(String.format("%.0f", eps));
                    if (eps > best * 1.05) {
                        best = eps;
                        flat = 0;
                    } else {
                        flat++;
                    }
                }
                double warmupSeconds = (System.nanoTime() - warmStart) / 1e9;
                log.accept(String.format("%d worker JVMs warming up, episodes/s per %d episodes: %s%s", n, chunk, String.join(" ", warming),
                        flat < 3 ? " (still getting faster when the warm-up's time ran out)" : ""));
                double measured = 0;
                for (int c = 0; c < STEADY_MEASURED_CHUNKS; c++) measured += seconds(node, "s" + c + "-", chunk, inflight, spec);
                return new Rates(cold, (double) chunk * STEADY_MEASURED_CHUNKS / measured, warmupSeconds);
            } finally {
                for (NodeProcess w : workers) w.close();
            }
        }
    }

    /** Runs {@code episodes} fresh ones (ids under {@code prefix}), {@code inflight} at a time; the seconds they took. */
    private static double seconds(SwarmNode node, String prefix, int episodes, int inflight, EpisodeSpec spec) throws Exception {
        long[] wrong = {0};
        long t0 = System.nanoTime();
        EpisodeRuns.runAll(node, jobs(prefix, episodes, spec), inflight, t -> {
            if (t.stopReason() != StopReason.FINAL_ANSWER) wrong[0]++;
        });
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (wrong[0] > 0) throw new IllegalStateException(wrong[0] + " episodes did not complete");
        return seconds;
    }

    private static Map<String, Object> recovery(Settings s, Path script, Consumer<String> log) throws Exception {
        Map<String, Object> f = new LinkedHashMap<>();
        try (SwarmNode node = orchestrator()) {
            List<NodeProcess> workers = startWorkers(3, node, s, script, log);
            try {
                EpisodeSpec spec = spec(node.system().settings().config(), s.turns());
                EpisodeRuns.runAll(node, jobs("warm-", s.recoveryEpisodes(), spec), s.recoveryEpisodes(), t -> {});
                Map<String, Integer> seen = new ConcurrentHashMap<>();
                AtomicLong last = new AtomicLong();
                List<BatchRunner.Job> jobs = jobs("r-", s.recoveryEpisodes(), spec);
                CompletableFuture<List<Trajectory>> run = CompletableFuture.supplyAsync(() -> {
                    try {
                        return EpisodeRuns.runAll(node, jobs, jobs.size(), t -> {
                            seen.merge(t.episodeId(), 1, Integer::sum);
                            last.set(System.nanoTime());
                        });
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                Thread.sleep(s.latencyMs() * s.turns() / 2); // mid-episode
                long killed = System.nanoTime();
                workers.get(workers.size() - 1).kill();
                log.accept("killed a worker JVM with SIGKILL; waiting for its episodes to run again elsewhere");
                try {
                    run.get(5, TimeUnit.MINUTES);
                } catch (Exception e) {
                    log.accept("the run did not finish: " + e);
                }
                long duplicates = seen.values().stream().filter(c -> c > 1).count();
                f.put("recovery_s", Report.round((last.get() - killed) / 1e9, 2));
                f.put("recovery_episodes", jobs.size());
                f.put("lost_episodes", jobs.size() - seen.size());
                f.put("duplicate_episodes", duplicates);
                log.accept(String.format("recovery: the last episode finished %.1f s after the kill; %d lost, %d duplicated",
                        (last.get() - killed) / 1e9, jobs.size() - seen.size(), duplicates));
            } finally {
                for (NodeProcess w : workers) w.close();
            }
        }
        return f;
    }

    /**
     * One rollout coordinator on its own node; {@code simulatedNodes} nodes in this JVM whose worker
     * entities answer every episode at once with a 3-turn trajectory of 300 tokens; a learner that
     * answers at once. Every answer crosses Artery as CBOR and is appended to trajectories.jsonl.
     */
    private static Map<String, Object> coordinator(Settings s, Path dir, Consumer<String> log) throws Exception {
        Config cfg = SwarmNode.loadConfig(null);
        List<SwarmNode> nodes = new ArrayList<>();
        try {
            SwarmNode home = SwarmNode.start(cfg.withValue("pekko.cluster.roles",
                    ConfigValueFactory.fromIterable(List.of(SwarmNode.ORCHESTRATOR_ROLE))), sys -> {
                throw new IllegalStateException("no workers on the coordinator's node");
            }, null);
            nodes.add(home);
            Config simulatedCfg = cfg.withValue("pekko.cluster.roles", ConfigValueFactory.fromIterable(List.of(SIMULATED)));
            for (int i = 0; i < s.simulatedNodes(); i++) {
                SwarmNode w = SwarmNode.start(simulatedCfg, sys -> {
                    throw new IllegalStateException("simulated nodes host no real workers");
                }, home.address());
                String node = w.address().toString();
                // Workers that answer at once, in an entity type of their own: the coordinator's cost, not an episode's.
                ClusterSharding.get(w.system()).init(Entity.of(INSTANT_WORKER, ctx -> instantWorker(node)).withRole(SIMULATED));
                nodes.add(w);
            }
            ActorRef<org.apache.pekko.cluster.sharding.typed.ShardingEnvelope<WorkerProtocol.Command>> region =
                    ClusterSharding.get(home.system()).init(Entity.of(INSTANT_WORKER, ctx -> instantWorker("none")).withRole(SIMULATED));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (home.upMembers(SIMULATED) < s.simulatedNodes() && System.nanoTime() < deadline) Thread.sleep(20);
            int generations = 8;
            int groupsPerStep = 512; // large batches: the instant learner takes groups as fast as they complete
            int steps = Math.max(1, s.coordinatorEpisodes() / (generations * groupsPerStep));
            List<Task> tasks = new ArrayList<>();
            for (int i = 0; i < 256; i++) tasks.add(Task.of("t" + i, "What is 6 * 7?"));
            RolloutCoordinator.Settings settings = new RolloutCoordinator.Settings(generations, 4096, groupsPerStep, 1_000_000, steps, false,
                    Duration.ofMinutes(5));
            CompletableFuture<RolloutCoordinator.Summary> done = new CompletableFuture<>();
            ActorRef<LearnerProtocol.Command> learner = home.system().systemActorOf(instantLearner(), "bench-learner", Props.empty());
            Path runDir = Files.createDirectories(dir.resolve("coordinator"));
            try (MetricsLog trajectories = MetricsLog.appendOnly(runDir.resolve("trajectories.jsonl"));
                 MetricsLog metrics = MetricsLog.open(runDir.resolve("metrics.jsonl"), 0)) {
                home.system().systemActorOf(RolloutCoordinator.create(settings, tasks, 0, spec(cfg, 3),
                        new RolloutCoordinator.Wiring(WorkerRoute.sharded(region, 64), learner), 0, 0, trajectories, metrics, step -> {}, done),
                        "bench-coordinator", Props.empty());
                RolloutCoordinator.Summary summary = done.get(10, TimeUnit.MINUTES);
                if (summary.error() != null) throw new IllegalStateException(summary.error());
                double eps = summary.episodes() / summary.wallSeconds();
                log.accept(String.format("one coordinator, %d simulated worker nodes answering at once: %.0f episodes/s dispatched and"
                        + " recorded (%d episodes, %.1f s)", s.simulatedNodes(), eps, summary.episodes(), summary.wallSeconds()));
                Map<String, Object> f = new LinkedHashMap<>();
                f.put("coordinator_max_episodes_per_s", Report.round(eps, 0));
                f.put("coordinator_simulated_nodes", s.simulatedNodes());
                f.put("coordinator_episodes", summary.episodes());
                f.put("coordinator_trajectory_bytes", Files.size(runDir.resolve("trajectories.jsonl")) / Math.max(1, summary.episodes()));
                return f;
            }
        } finally {
            for (int i = nodes.size() - 1; i >= 0; i--) nodes.get(i).close();
        }
    }

    /** Three assistant turns of 100 tokens each, with their log-probs: a small real answer's size. */
    private static Behavior<WorkerProtocol.Command> instantWorker(String node) {
        return Behaviors.receiveMessage(m -> {
            if (m instanceof WorkerProtocol.RunEpisode r) {
                if (r.receipts() != null) r.receipts().tell(new WorkerProtocol.Accepted(r.episodeId(), node));
                r.replyTo().tell(cannedAnswer(r));
            }
            return Behaviors.same();
        });
    }

    private static Trajectory cannedAnswer(WorkerProtocol.RunEpisode r) {
        int[] ids = new int[100];
        float[] logprobs = new float[100];
        Arrays.fill(ids, 7);
        Arrays.fill(logprobs, -0.5f);
        List<Turn> turns = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            turns.add(Turn.assistant(i, new Completion("The answer is 42.", List.of(), ids, logprobs, FinishReason.STOP, 0, 100, 100),
                    List.of(), List.of(), null, null));
        }
        return new Trajectory(r.episodeId(), r.groupId(), r.task().id(), List.of(Message.user(r.task().prompt())), turns,
                "The answer is 42.", StopReason.FINAL_ANSWER, null, null, null);
    }

    /** Each batch is one update, answered at once. */
    private static Behavior<LearnerProtocol.Command> instantLearner() {
        long[] step = {0};
        return Behaviors.receiveMessage(m -> {
            if (m instanceof LearnerProtocol.TrainBatch b) {
                step[0]++;
                b.replyTo().tell(new LearnerProtocol.BatchTrained(b.batchId(), step[0], step[0], true, Map.of(), null));
            }
            return Behaviors.same();
        });
    }
}
