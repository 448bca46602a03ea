package dev.agentswarm.app.cli;

import dev.agentswarm.app.bench.LearnerBenchmark;
import dev.agentswarm.app.bench.LoopBenchmark;
import dev.agentswarm.app.bench.SftBenchmark;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "learner", mixinStandardHelpOptions = true,
        description = {"Times GRPO learner steps (forward, dapo loss with clip-higher, backward, clip 1.0, AdamW) on the"
                + " plain-PyTorch reference's batch, and a dense 1024³ matmul on the same engine; reports tokens/s, GFLOP/s and"
                + " their ratio.", "The default shape is the reference's: swarm bench learner --preset small --batch 16 --generations 4 --seq 256",
                "On a Hugging Face folder (Qwen3, Qwen2, Llama; config.json + safetensors): swarm bench learner --model DIR"})
public final class BenchLearnerCommand implements Callable<Integer> {

    @Option(names = "--generations", defaultValue = "4", description = "Completions per prompt (default ${DEFAULT-VALUE}).")
    int generations;

    @Mixin
    TrainingStepOptions shape;

    @Option(names = "--model", paramLabel = "DIR",
            description = "A Hugging Face model folder to train instead of the preset (the weight-swap and loop comparisons,"
                    + " which use the presets, are skipped).")
    Path model;

    @Option(names = "--tuning", defaultValue = "full", description = "What the step trains: full (every weight) or lora (a rank-16 adapter on all linear modules, the base"
            + " frozen) (default ${DEFAULT-VALUE}).")
    String tuning;

    @Option(names = "--swaps", defaultValue = "10", description = "Weight swaps timed, publish to served, on one node and with the server on a second node (default ${DEFAULT-VALUE}).")
    int swaps;

    @Option(names = "--loop-steps", defaultValue = "4",
            description = "Updates per training run in the async-against-sync comparison; 0 skips it (default ${DEFAULT-VALUE}).")
    int loopSteps;

    @Option(names = "--loop-rounds", defaultValue = "1", description = "Sync/async run pairs (default ${DEFAULT-VALUE}).")
    int loopRounds;

    @Mixin
    JsonOption json;

    /** The comparison's runs: the tiny model on arithmetic, short episodes, so the loop's overheads show. */
    static final String LOOP_CONFIG = """
            agentswarm.policy.embedded.model { preset = tiny, context = 1536 }
            agentswarm.episode { max-turns = 2, sampling.max-tokens = 24 }
            agentswarm.learner.grpo { num-generations = 4, learning-rate = 1e-3, dynamic-sampling = false }
            agentswarm.train { suite = arithmetic, groups-per-step = 2, max-inflight = 16, max-staleness = 1, checkpoint-every = 0 }
            """;

    @Override
    public Integer call() throws Exception {
        Map<String, Object> f = LearnerBenchmark.run(shape.settings(), model, LearnerBenchmark.Tuning.parse(tuning), generations,
                System.err::println);
        Report r = new Report();
        if (model != null) {
            r.line(String.format("%s from %s: loaded in %.0f ms; log-prob checksum %.6f", f.get("family"), model,
                    (Double) f.get("load_ms"), (Double) f.get("logprob_checksum")));
        }
        r.line(String.format("GRPO learner step (dapo, ε 0.2/0.28, AdamW, clip 1.0, %s), %s %s (%,d parameters), B=%d (%d prompts × %d)"
                + " × T=%d, %d completion tokens, %s engine threads:", f.get("tuning"), f.get("preset"), model == null ? "preset" : "model",
                (Long) f.get("params"), shape.batch, shape.batch / generations,
                generations, shape.seq, (Integer) f.get("completion_tokens"), f.get("threads")));
        r.line(String.format("  step median %.1f ms (min %.1f, max %.1f) over %d steps", (Double) f.get("step_ms_median"),
                (Double) f.get("step_ms_min"), (Double) f.get("step_ms_max"), shape.steps));
        r.line(String.format("  %.0f tokens/s, %.1f GFLOP/s; dense 1024³ matmul %.1f GFLOP/s → %.1f%% of it",
                (Double) f.get("tokens_per_s"), (Double) f.get("gflops"), (Double) f.get("matmul_gflops"),
                100 * (Double) f.get("matmul_fraction")));
        if (swaps > 0 && model == null) {
            Map<String, Object> w = LoopBenchmark.weightSwap(shape.preset, swaps, System.err::println);
            f.putAll(w);
            r.line(String.format("  weight swap, publish → served: median %.1f ms, worst %.1f ms (%,d bytes of safetensors)",
                    (Double) w.get("weight_swap_ms"), (Double) w.get("weight_swap_max_ms"), (Integer) w.get("weight_bytes")));
            Map<String, Object> x = LoopBenchmark.weightSwapAcrossNodes(shape.preset, swaps, System.err::println);
            f.putAll(x);
            r.line(String.format("  the same with the server on a second node: median %.1f ms, worst %.1f ms",
                    (Double) x.get("weight_swap_cross_node_ms"), (Double) x.get("weight_swap_cross_node_max_ms")));
        }
        if (loopSteps > 0 && model == null) {
            Map<String, Object> l = LoopBenchmark.asyncOverSync(com.typesafe.config.ConfigFactory.parseString(LOOP_CONFIG)
                    .withFallback(dev.agentswarm.app.SwarmNode.loadConfig(null)), loopSteps, loopRounds, System.err::println);
            f.putAll(l);
            r.line(String.format("  training runs of %d updates (tiny, arithmetic): async %.2f episodes/s, sync %.2f → %.2fx",
                    loopSteps, (Double) l.get("async_episodes_per_s"), (Double) l.get("sync_episodes_per_s"), (Double) l.get("async_over_sync")));
            r.line(String.format("  trajectories.jsonl forced to the disk before each update: %.2f ms per update (median of the runs)",
                    (Double) l.get("trajectories_fsync_ms_per_step")));
        }
        f.forEach(r::put);
        r.print(json.json);
        return 0;
    }
}
