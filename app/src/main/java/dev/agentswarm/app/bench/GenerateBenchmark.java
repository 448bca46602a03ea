package dev.agentswarm.app.bench;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.ParameterStore;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.protocol.SamplingParams;
import dev.agentswarm.policy.embedded.GeneratorSettings;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.InferenceThreads;
import dev.agentswarm.policy.model.ModelConfig;
import dev.agentswarm.workers.PolicyServer;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Greedy decoding with the embedded model through the {@link PolicyServer}, the workload of the
 * PyTorch reference's generate.py: prompts of 16 random tokens, 256 new tokens each, no stop.
 * Measures tokens/s with 1..64 concurrent requests (continuous batching against one at a time),
 * the KV cache against recomputing the whole prefix every step, and the memory of serving. A preset
 * runs with fresh weights; a Hugging Face folder ({@link Settings#model}) runs its own weights, with
 * prompts drawn from its whole vocabulary (no tokenizer is needed), and reports its load time and
 * the log-prob checksum of {@link BenchModel} (bench/pytorch-ref-qwen3/generate.py is the other side).
 */
public final class GenerateBenchmark {

    /**
     * @param model a Hugging Face folder (config.json + safetensors) to run instead of the preset, or null
     * @param loadOnly load the model (and score the checksum sequence), then stop: no decoding
     * @param warmupRounds untimed rounds over every concurrency before the timed ones (the JIT compiles the
     *     decoder's Java glue for each batch size as it runs: the first round at 32 rows runs well below the later ones)
     */
    public record Settings(String preset, Path model, boolean loadOnly, int promptTokens, int newTokens, int[] concurrency,
                           int runs, int warmupRounds, boolean recompute, GeneratorSettings.Decoder decoder,
                           int javaAttentionRows) {

        /** A preset with fresh weights. */
        public Settings(String preset, int promptTokens, int newTokens, int[] concurrency, int runs,
                        boolean recompute, GeneratorSettings.Decoder decoder, int javaAttentionRows) {
            this(preset, null, false, promptTokens, newTokens, concurrency, runs, 0, recompute, decoder, javaAttentionRows);
        }
    }

    private GenerateBenchmark() {}

    /** The preset's fresh model or the loaded folder, with the keys that describe it put into {@code f}. */
    private static CausalLm openModel(Settings s, int context, NDManager manager, Map<String, Object> f,
                                      Consumer<String> progress) {
        if (s.model() == null) {
            ModelConfig shape = ModelConfig.preset(s.preset()).withContext(context);
            f.put("preset", shape.name());
            f.put("parameters", shape.parameters());
            return CausalLm.create(shape, manager, 0);
        }
        progress.accept("loading " + s.model());
        BenchModel.Opened opened = BenchModel.load(s.model(), manager, context);
        CausalLm lm = opened.model();
        f.put("preset", lm.config().name());
        f.put("parameters", lm.config().parameters());
        BenchModel.describe(f, s.model(), opened, manager);
        return lm;
    }

    public static Map<String, Object> run(Settings s, Consumer<String> progress) throws Exception {
        InferenceThreads.noGradHere();
        int context = s.promptTokens() + s.newTokens();
        int maxBatch = Arrays.stream(s.concurrency()).max().orElse(1);
        Map<String, Object> f = new LinkedHashMap<>();
        long rssBefore = BenchModel.rssBytes();
        NDManager manager = NDManager.newBaseManager();
        CausalLm lm;
        try {
            // Off the main thread, which would otherwise keep an OpenMP team that slows the server's (InferenceThreads).
            lm = InferenceThreads.onOwnThread("bench-model", () -> openModel(s, context, manager, f, progress));
        } catch (RuntimeException e) {
            manager.close();
            throw e;
        }
        ModelConfig shape = lm.config();
        if (s.loadOnly()) {
            f.put("rss_bytes_before_model", rssBefore);
            manager.close();
            return f;
        }
        // Random prompt ids: below 256 for the presets (as before), anywhere in a loaded model's vocabulary.
        int idBound = s.model() == null ? Math.min(256, shape.vocab()) : shape.vocab();
        ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "bench-generate", ConfigFactory.parseString(
                "pekko.actor.provider = local\npekko.loglevel = WARNING").withFallback(ConfigFactory.load()));
        try (manager) {
            ActorRef<PolicyServer.Command> server = system.systemActorOf(
                    // All of the model's ids may be produced: the workload is the reference's, not text.
                    PolicyServer.create(() -> new dev.agentswarm.policy.embedded.BatchGenerator(lm, manager,
                            new GeneratorSettings(maxBatch, 1024, 8192, 0, s.decoder(), s.javaAttentionRows()), id -> new byte[0], shape.vocab(), 0)),
                    "policy-server", DispatcherSelector.fromConfig("agentswarm.policy-server-dispatcher"));
            SamplingParams greedy = new SamplingParams(0, 1, 0, s.newTokens(), List.of(), null);
            f.put("prompt_tokens", s.promptTokens());
            f.put("new_tokens", s.newTokens());
            f.put("decoder", s.decoder().name().toLowerCase(java.util.Locale.ROOT));
            f.put("java_attention_rows", s.javaAttentionRows());
            progress.accept("warm-up");
            generate(server, system, 4, s.promptTokens(), idBound, greedy.withMaxTokens(32), 0);
            for (int w = 0; w < s.warmupRounds(); w++) {
                for (int c : s.concurrency()) {
                    for (var reply : generate(server, system, c, s.promptTokens(), idBound, greedy, 500 + w)) {
                        tokensOf(reply.get(10, TimeUnit.MINUTES));
                    }
                    progress.accept(String.format("warm-up round %d/%d, concurrency %3d done", w + 1, s.warmupRounds(), c));
                }
            }
            f.put("warmup_rounds", s.warmupRounds());

            // Rounds visit every concurrency in turn, so drift on a shared machine moves all of them
            // alike; each concurrency keeps its median, and a speedup is the median of its per-round ratios.
            int[] levels = s.concurrency();
            double[][] perRound = new double[levels.length][s.runs()];
            long heapServing = -1;
            long rssServing = -1;
            for (int r = 0; r < s.runs(); r++) {
                for (int i = 0; i < levels.length; i++) {
                    int c = levels[i];
                    long t0 = System.nanoTime();
                    List<CompletableFuture<PolicyServer.Reply>> replies = generate(server, system, c, s.promptTokens(), idBound, greedy, r);
                    long tokens = 0;
                    for (var reply : replies) tokens += tokensOf(reply.get(10, TimeUnit.MINUTES));
                    perRound[i][r] = tokens / ((System.nanoTime() - t0) / 1e9);
                    if (c == maxBatch && r == 0) {
                        heapServing = heapUsed();
                        rssServing = BenchModel.rssBytes();
                    }
                    progress.accept(String.format("round %d/%d, concurrency %3d: %,.0f tokens/s", r + 1, s.runs(), c, perRound[i][r]));
                }
            }
            Map<String, Double> tps = new LinkedHashMap<>();
            for (int i = 0; i < levels.length; i++) tps.put(Integer.toString(levels[i]), Samples.median(perRound[i]));
            f.put("tokens_per_s", tps);
            int one = indexOf(levels, 1);
            for (int target : new int[] {32, 64}) {
                int at = indexOf(levels, target);
                if (one < 0 || at < 0) continue;
                double[] ratio = new double[s.runs()];
                for (int r = 0; r < s.runs(); r++) ratio[r] = perRound[at][r] / perRound[one][r];
                f.put("batching_speedup_" + target, Samples.median(ratio));
            }

            if (s.recompute()) {
                // Pairs of (cached, recomputed) runs side by side, so drift on a shared machine
                // moves both sides of each ratio alike; the median pair ratio is reported.
                progress.accept("recomputing the prefix at every step, batch 1 (slow by design), "
                        + s.runs() + " runs each beside a cached run");
                double[] cached = new double[s.runs()];
                double[] recomputed = new double[s.runs()];
                double[] ratio = new double[s.runs()];
                for (int r = 0; r < s.runs(); r++) {
                    long t0 = System.nanoTime();
                    long tokens = tokensOf(generate(server, system, 1, s.promptTokens(), idBound, greedy, 100 + r).get(0)
                            .get(10, TimeUnit.MINUTES));
                    cached[r] = tokens / ((System.nanoTime() - t0) / 1e9);
                    recomputed[r] = InferenceThreads.onOwnThread("bench-recompute",
                            () -> recomputeTokensPerSecond(lm, s.promptTokens(), s.newTokens(), idBound));
                    ratio[r] = cached[r] / recomputed[r];
                    progress.accept(String.format("  pair %d: cached %,.0f, recomputed %,.1f tokens/s: %.1f×", r + 1,
                            cached[r], recomputed[r], ratio[r]));
                }
                f.put("cached_tokens_per_s_paired", Samples.median(cached));
                f.put("recompute_tokens_per_s", Samples.median(recomputed));
                f.put("kv_cache_speedup_" + s.newTokens(), Samples.median(ratio));
            }
            f.put("kv_cache_bytes", (long) maxBatch * 2L * shape.layers() * shape.context() * shape.kvHeads() * shape.headSize() * 4L);
            f.put("weights_bytes", shape.parameters() * 4L);
            f.put("heap_bytes_serving_" + maxBatch, heapServing);
            f.put("rss_bytes_before_model", rssBefore);
            f.put("rss_bytes_serving_" + maxBatch, rssServing);
        } finally {
            system.terminate();
            system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
        return f;
    }

    private static int indexOf(int[] values, int wanted) {
        for (int i = 0; i < values.length; i++) if (values[i] == wanted) return i;
        return -1;
    }

    private static List<CompletableFuture<PolicyServer.Reply>> generate(ActorRef<PolicyServer.Command> server,
            ActorSystem<Void> system, int n, int promptTokens, int idBound, SamplingParams sampling, int seed) {
        Random random = new Random(1000L * n + seed);
        List<CompletableFuture<PolicyServer.Reply>> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int[] prompt = random.ints(promptTokens, 0, idBound).toArray();
            long id = (long) seed * 1_000_000 + n * 1000L + i;
            CompletionStage<PolicyServer.Reply> reply = AskPattern.ask(server,
                    r -> new PolicyServer.Generate(id, prompt, sampling, new int[0], r), Duration.ofMinutes(10), system.scheduler());
            out.add(reply.toCompletableFuture());
        }
        return out;
    }

    private static long tokensOf(PolicyServer.Reply reply) {
        if (reply instanceof PolicyServer.Generated g) return g.generation().tokens().length;
        throw new IllegalStateException("request refused: " + ((PolicyServer.Rejected) reply).reason());
    }

    /** Greedy decoding where every step runs the whole prefix again (no cache), head on the last position only. */
    static double recomputeTokensPerSecond(CausalLm model, int promptTokens, int newTokens, int idBound) {
        InferenceThreads.noGradHere();
        long[] ids = new Random(7).ints(promptTokens, 0, idBound).asLongStream().toArray();
        long[] seq = Arrays.copyOf(ids, promptTokens + newTokens);
        try (NDManager m = NDManager.newBaseManager()) {
            ParameterStore ps = new ParameterStore(m, false);
            long t0 = System.nanoTime();
            for (int t = promptTokens; t < promptTokens + newTokens; t++) {
                try (NDManager step = m.newSubManager()) {
                    NDArray prefix = step.create(Arrays.copyOf(seq, t), new Shape(1, t));
                    seq[t] = model.lastLogits(ps, prefix).argMax(1).getLong();
                }
            }
            return newTokens / ((System.nanoTime() - t0) / 1e9);
        }
    }


    private static long heapUsed() {
        System.gc();
        var heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        return heap.getUsed();
    }

}
