package dev.agentswarm.app.cli;

import dev.agentswarm.app.bench.LearnerBenchmark;
import dev.agentswarm.app.bench.SftBenchmark;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "learner", mixinStandardHelpOptions = true,
        description = {"Times GRPO learner steps (forward, dapo loss with clip-higher, backward, clip 1.0, AdamW) on the"
                + " plain-PyTorch reference's batch, and a dense 1024³ matmul on the same engine; reports tokens/s, GFLOP/s and"
                + " their ratio.", "The default shape is the reference's: swarm bench learner --preset small --batch 16 --generations 4 --seq 256"})
public final class BenchLearnerCommand implements Callable<Integer> {

    @Option(names = "--generations", defaultValue = "4", description = "Completions per prompt (default ${DEFAULT-VALUE}).")
    int generations;

    @Mixin
    TrainingStepOptions shape;

    @Mixin
    JsonOption json;

    @Override
    public Integer call() {
        Map<String, Object> f = LearnerBenchmark.run(shape.settings(), generations,
                System.err::println);
        Report r = new Report();
        r.line(String.format("GRPO learner step (dapo, ε 0.2/0.28, AdamW, clip 1.0), %s preset (%,d parameters), B=%d (%d prompts × %d)"
                + " × T=%d, %d completion tokens, %s engine threads:", f.get("preset"), (Long) f.get("params"), shape.batch, shape.batch / generations,
                generations, shape.seq, (Integer) f.get("completion_tokens"), f.get("threads")));
        r.line(String.format("  step median %.1f ms (min %.1f, max %.1f) over %d steps", (Double) f.get("step_ms_median"),
                (Double) f.get("step_ms_min"), (Double) f.get("step_ms_max"), shape.steps));
        r.line(String.format("  %.0f tokens/s, %.1f GFLOP/s; dense 1024³ matmul %.1f GFLOP/s → %.1f%% of it",
                (Double) f.get("tokens_per_s"), (Double) f.get("gflops"), (Double) f.get("matmul_gflops"),
                100 * (Double) f.get("matmul_fraction")));
        f.forEach(r::put);
        r.print(json.json);
        return 0;
    }
}
