package dev.agentswarm.app.cli;

import dev.agentswarm.app.bench.GenerateBenchmark;
import dev.agentswarm.policy.embedded.GeneratorSettings;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "generate", mixinStandardHelpOptions = true,
        description = {"Greedy decoding with the embedded model through the node's policy server: tokens/s by number of",
                "concurrent requests (continuous batching), the KV cache against recomputing the prefix, memory.",
                "Same workload as the PyTorch reference: swarm bench generate --preset small;",
                "on a Hugging Face folder (Qwen3, Qwen2, Llama; config.json + safetensors): swarm bench generate --model DIR"})
public final class BenchGenerateCommand implements Callable<Integer> {

    @Option(names = "--preset", defaultValue = "small", description = "Model preset (default ${DEFAULT-VALUE}).")
    String preset;

    @Option(names = "--model", paramLabel = "DIR",
            description = "A Hugging Face model folder to run instead of the preset; prompts are random ids in its vocabulary.")
    Path model;

    @Option(names = "--load-only", description = "With --model: load it, score the checksum sequence, report time and memory, stop.")
    boolean loadOnly;

    @Option(names = "--prompt", defaultValue = "16", description = "Prompt tokens per request (default ${DEFAULT-VALUE}).")
    int prompt;

    @Option(names = "--tokens", defaultValue = "256", description = "New tokens per request (default ${DEFAULT-VALUE}).")
    int tokens;

    @Option(names = "--concurrency", split = ",", defaultValue = "1,8,32,64",
            description = "Concurrent requests to measure (default ${DEFAULT-VALUE}).")
    int[] concurrency;

    @Option(names = "--runs", defaultValue = "3", description = "Runs per concurrency; the median is kept (default ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--warmup-rounds", defaultValue = "0",
            description = "Untimed rounds over every concurrency first, so the JIT has compiled each batch size's path (default ${DEFAULT-VALUE}).")
    int warmupRounds;

    @Option(names = "--no-recompute", description = "Skip the (slow) no-KV-cache baseline.")
    boolean noRecompute;

    @Option(names = "--decoder", defaultValue = "hybrid",
            description = "hybrid (products in libtorch, glue in Java) or engine (DJL ops throughout) (default ${DEFAULT-VALUE}).")
    String decoder;

    @Option(names = "--java-attention-rows", defaultValue = "" + GeneratorSettings.DEFAULT_JAVA_ATTENTION_ROWS,
            description = "Hybrid steps of at most this many sequences attend in Java (default ${DEFAULT-VALUE}).")
    int javaAttentionRows;

    @Mixin
    JsonOption json;

    @Override
    @SuppressWarnings("unchecked")
    public Integer call() throws Exception {
        if (warmupRounds < 0) throw new IllegalArgumentException("--warmup-rounds must be >= 0");
        if (prompt < 1 || tokens < 1 || runs < 1 || Arrays.stream(concurrency).anyMatch(c -> c < 1)) {
            throw new IllegalArgumentException("--prompt, --tokens, --runs and --concurrency must be >= 1");
        }
        if (javaAttentionRows < 0) throw new IllegalArgumentException("--java-attention-rows must be >= 0");
        GeneratorSettings.Decoder path = GeneratorSettings.Decoder.parse(decoder);
        if (loadOnly && model == null) throw new IllegalArgumentException("--load-only needs --model");
        var settings = new GenerateBenchmark.Settings(preset, model, loadOnly, prompt, tokens, concurrency, runs, warmupRounds, !noRecompute,
                path, javaAttentionRows);
        Map<String, Object> f = GenerateBenchmark.run(settings, System.err::println);
        Report r = new Report();
        if (model != null) {
            r.line(String.format("%s from %s (%,d parameters): loaded in %.0f ms, process RSS %.0f MB; log-prob checksum %.6f",
                    f.get("family"), model, (Long) f.get("parameters"), (Double) f.get("load_ms"),
                    (Long) f.get("rss_bytes_after_load") / 1e6, (Double) f.get("logprob_checksum")));
        }
        if (loadOnly) {
            f.forEach(r::put);
            r.print(json.json);
            return 0;
        }
        r.line(String.format("greedy decoding, %s %s (%,d parameters), %d prompt + %d new tokens per request,"
                + " %s decoder%s", f.get("preset"), model == null ? "preset" : "model", (Long) f.get("parameters"), prompt,
                tokens, f.get("decoder"),
                path == GeneratorSettings.Decoder.HYBRID ? " (Java attention up to " + javaAttentionRows + " rows)" : ""));
        Map<String, Double> tps = (Map<String, Double>) f.get("tokens_per_s");
        double one = tps.getOrDefault("1", Double.NaN);
        tps.forEach((c, v) -> r.line(String.format("  %3s concurrent: %,8.0f tokens/s  (%.1f× one at a time)", c, v, v / one)));
        for (String key : new String[] {"batching_speedup_32", "batching_speedup_64"}) {
            if (f.containsKey(key)) {
                r.line(String.format("  %s: %.1f× (median of the rounds' ratios)", key.replace('_', ' '), (Double) f.get(key)));
            }
        }
        if (f.containsKey("recompute_tokens_per_s")) {
            r.line(String.format("  no KV cache (recompute the prefix), batch 1: %,.0f tokens/s against %,.0f cached in the same"
                            + " pairs; the cache is %.1f× faster at %d tokens (median pair)",
                    (Double) f.get("recompute_tokens_per_s"), (Double) f.get("cached_tokens_per_s_paired"),
                    (Double) f.get("kv_cache_speedup_" + tokens), tokens));
        }
        int max = Arrays.stream(concurrency).max().orElse(1);
        r.line(String.format("  memory serving %d: heap %.1f MB, process RSS %.0f MB (%.0f MB before the model);"
                        + " KV cache %.0f MB, weights %.1f MB", max,
                (Long) f.get("heap_bytes_serving_" + max) / 1e6, (Long) f.get("rss_bytes_serving_" + max) / 1e6,
                (Long) f.get("rss_bytes_before_model") / 1e6, (Long) f.get("kv_cache_bytes") / 1e6,
                (Long) f.get("weights_bytes") / 1e6));
        f.forEach(r::put);
        r.print(json.json);
        return 0;
    }
}
