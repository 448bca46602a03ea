package dev.agentswarm.app.bench;

import ai.djl.ndarray.NDManager;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import dev.agentswarm.app.SwarmNode;
import dev.agentswarm.app.Training;
import dev.agentswarm.core.tool.ToolRegistry;
import dev.agentswarm.testkit.ScriptedPolicy;
import dev.agentswarm.workers.EpisodeServices;
import dev.agentswarm.core.protocol.WeightsProtocol;
import dev.agentswarm.learner.WeightsSource;
import dev.agentswarm.workers.WeightsFetcher;
import dev.agentswarm.policy.embedded.BatchGenerator;
import dev.agentswarm.policy.embedded.EmbeddedModel;
import dev.agentswarm.policy.embedded.GeneratorSettings;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.ModelConfig;
import dev.agentswarm.policy.model.ModelWeights;
import dev.agentswarm.policy.tokenizer.BpeTokenizer;
import dev.agentswarm.workers.PolicyServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The learner's loop figures: how long new weights take from {@code publish} to a policy server
 * serving them, and episodes/s of whole training runs asynchronous against {@code sync = true},
 * the two alternated in one sitting.
 */
public final class LoopBenchmark {

    private LoopBenchmark() {}

    /** Median and worst milliseconds from publishing weights of {@code preset} to the server reporting their version. */
    public static Map<String, Object> weightSwap(String preset, int swaps, Consumer<String> log) throws Exception {
        ModelConfig shape = ModelConfig.preset(preset);
        ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "bench-weights", ConfigFactory.parseString(
                "pekko.actor.provider = local\npekko.loglevel = WARNING").withFallback(ConfigFactory.load()));
        try (EmbeddedModel model = EmbeddedModel.create(shape, BpeTokenizer.untrained(), null, 1)) {
            ActorRef<PolicyServer.Command> server = serve(system, model);
            Swaps timed = timeSwaps(system, server, WeightsSource.spawn(system), shape, swaps);
            log.accept(String.format("weight swap (%s): median %.1f ms over %d", preset, SftBenchmark.median(timed.sortedMs()), swaps));
            return timed.figures("weight_swap");
        } finally {
            system.terminate();
            system.getWhenTerminated().toCompletableFuture().get();
        }
    }

    /**
     * The same with the policy server on a second node of a two-node cluster on 127.0.0.1: the
     * weights are pulled in chunks over Artery's large-message lane, as they are from a learner to
     * another machine's workers.
     */
    public static Map<String, Object> weightSwapAcrossNodes(String preset, int swaps, Consumer<String> log) throws Exception {
        ModelConfig shape = ModelConfig.preset(preset);
        Config node = SwarmNode.loadConfig(null);
        EpisodeServices none = new EpisodeServices(ScriptedPolicy.replies("unused"), ToolRegistry.of());
        try (SwarmNode learner = SwarmNode.start(node, none, null);
             SwarmNode worker = SwarmNode.start(node, none, learner.address());
             EmbeddedModel model = EmbeddedModel.create(shape, BpeTokenizer.untrained(), null, 1)) {
            ActorRef<PolicyServer.Command> server = serve(worker.system(), model);
            ActorRef<WeightsProtocol.SourceCommand> source = learner.weightsSource();
            WeightsBenchmark.awaitTopics(learner.system(), 1, Duration.ofSeconds(30)); // notices reach the worker's node
            Swaps timed = timeSwaps(worker.system(), server, source, shape, swaps);
            log.accept(String.format("weight swap across nodes (%s): median %.1f ms over %d", preset, SftBenchmark.median(timed.sortedMs()),
                    swaps));
            return timed.figures("weight_swap_cross_node");
        }
    }

    /** A policy server fed by the node's weights fetcher, which pulls what a weights source announces. */
    private static ActorRef<PolicyServer.Command> serve(ActorSystem<?> system, EmbeddedModel model) {
        ActorRef<PolicyServer.Command> server = system.systemActorOf(PolicyServer.create(
                        () -> model.newGenerator(new GeneratorSettings(8, 64, 4096, 1))),
                "policy-server", DispatcherSelector.fromConfig("agentswarm.policy-server-dispatcher"));
        WeightsFetcher.spawn(system, system.settings().config(), server, model.version(),
                dev.agentswarm.workers.WeightsAcceptance.maxBytes(model.model()));
        return server;
    }

    /** Milliseconds from each publish to the server serving that version, sorted, and the size of the weights sent. */
    private record Swaps(double[] sortedMs, int weightBytes) {
        Map<String, Object> figures(String key) {
            Map<String, Object> f = new LinkedHashMap<>();
            f.put("weight_bytes", weightBytes);
            f.put(key + "_ms", SftBenchmark.round(SftBenchmark.median(sortedMs)));
            f.put(key + "_max_ms", SftBenchmark.round(sortedMs[sortedMs.length - 1]));
            return f;
        }
    }

    /** Times {@code swaps} swaps after one untimed swap (the fetcher finds the source). */
    private static Swaps timeSwaps(ActorSystem<?> serverSystem, ActorRef<PolicyServer.Command> server,
                                      ActorRef<WeightsProtocol.SourceCommand> source, ModelConfig shape, int swaps) throws Exception {
        byte[][] weights = new byte[swaps + 1][];
        try (NDManager m = NDManager.newBaseManager()) {
            CausalLm other = CausalLm.create(shape, m, 2);
            for (int v = 1; v <= swaps + 1; v++) weights[v - 1] = ModelWeights.export(other, v);
        }
        awaitVersion(serverSystem, server, -1, Duration.ofSeconds(10)); // started
        // The first version reaches the server once its node's fetcher has found the source (catch-up).
        source.tell(new WeightsSource.Publish(1, weights[0], null));
        awaitVersion(serverSystem, server, 1, Duration.ofSeconds(30));
        double[] ms = new double[swaps];
        for (int i = 0; i < swaps; i++) {
            long v = i + 2;
            long t0 = System.nanoTime();
            source.tell(new WeightsSource.Publish(v, weights[i + 1], null));
            awaitVersion(serverSystem, server, v, Duration.ofSeconds(30));
            ms[i] = (System.nanoTime() - t0) / 1e6;
        }
        Arrays.sort(ms);
        return new Swaps(ms, weights[0].length);
    }

    /** Polls the server until it serves {@code version} (any version when -1). */
    private static void awaitVersion(ActorSystem<?> system, ActorRef<PolicyServer.Command> server, long version, Duration limit)
            throws Exception {
        long deadline = System.nanoTime() + limit.toNanos();
        while (true) {
            long served = version(system, server);
            if (version < 0 || served == version) return;
            if (System.nanoTime() > deadline) throw new IllegalStateException("the server still serves " + served + ", not " + version);
            Thread.sleep(0, 200_000);
        }
    }

    private static long version(ActorSystem<?> system, ActorRef<PolicyServer.Command> server) throws Exception {
        BatchGenerator.Stats s = AskPattern.<PolicyServer.Command, BatchGenerator.Stats>ask(server, PolicyServer.GetStats::new,
                Duration.ofSeconds(10), system.scheduler()).toCompletableFuture().get();
        return s.version();
    }

    /**
     * Episodes/s of {@code rounds} pairs of training runs on {@code base} (sync, then async), each
     * {@code steps} updates; the ratio of the medians.
     */
    public static Map<String, Object> asyncOverSync(Config base, int steps, int rounds, Consumer<String> log) throws Exception {
        double[] sync = new double[rounds];
        double[] async = new double[rounds];
        double[] fsyncMs = new double[2 * rounds];
        Path dir = Files.createTempDirectory("bench-loop");
        try {
            for (int r = 0; r < rounds; r++) {
                Run s = run(base, steps, true, dir.resolve("sync-" + r));
                Run a = run(base, steps, false, dir.resolve("async-" + r));
                sync[r] = s.episodesPerSecond();
                async[r] = a.episodesPerSecond();
                fsyncMs[2 * r] = s.fsyncMsPerStep();
                fsyncMs[2 * r + 1] = a.fsyncMsPerStep();
                log.accept(String.format("round %d: sync %.2f episodes/s, async %.2f episodes/s; trajectories fsync %.2f / %.2f ms per update",
                        r + 1, sync[r], async[r], s.fsyncMsPerStep(), a.fsyncMsPerStep()));
            }
        } finally { // each run leaves logs and a checkpoint of weights and moments
            dev.agentswarm.learner.sft.Checkpoints.deleteTree(dir);
        }
        Arrays.sort(sync);
        Arrays.sort(async);
        Arrays.sort(fsyncMs);
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("sync_episodes_per_s", dev.agentswarm.app.cli.Report.round(SftBenchmark.median(sync), 2));
        f.put("async_episodes_per_s", dev.agentswarm.app.cli.Report.round(SftBenchmark.median(async), 2));
        f.put("async_over_sync", Math.round(SftBenchmark.median(async) / SftBenchmark.median(sync) * 100) / 100.0);
        // The group commit's cost: trajectories.jsonl forced to the disk once per batch, before the learner gets it.
        f.put("trajectories_fsync_ms_per_step", dev.agentswarm.app.cli.Report.round(SftBenchmark.median(fsyncMs), 3));
        return f;
    }

    /** One training run's episodes/s, and the milliseconds per update spent forcing its trajectories to the disk. */
    private record Run(double episodesPerSecond, double fsyncMsPerStep) {}

    private static Run run(Config base, int steps, boolean sync, Path runDir) throws Exception {
        Config c = base.withValue("agentswarm.train.steps", ConfigValueFactory.fromAnyRef(steps))
                .withValue("agentswarm.train.sync", ConfigValueFactory.fromAnyRef(sync))
                .withValue("agentswarm.train.run-dir", ConfigValueFactory.fromAnyRef(runDir.toString()));
        Training.Outcome o = Training.run(c);
        double fsyncMs = 0;
        for (String line : Files.readAllLines(o.runDir().resolve("metrics.jsonl"))) {
            fsyncMs = Math.max(fsyncMs, dev.agentswarm.core.json.Json.parse(line).path("trajectories_sync_ms").asDouble(0));
        }
        return new Run(o.summary().episodes() / o.summary().wallSeconds(), fsyncMs / Math.max(1, o.summary().steps()));
    }
}
