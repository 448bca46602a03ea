package dev.agentswarm.app.cli;

import dev.agentswarm.app.bench.SftBenchmark;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "sft", mixinStandardHelpOptions = true,
        description = {"Times full SFT training steps (forward + backward + clip + AdamW) on random tokens, and a dense"
                + " 1024³ matmul on the same engine; reports tokens/s, GFLOP/s and their ratio.",
                "The default shape is the plain-PyTorch reference's: swarm bench sft --preset small --batch 16 --seq 256"})
public final class BenchSftCommand implements Callable<Integer> {

    @Mixin
    TrainingStepOptions shape;

    @Mixin
    JsonOption json;

    @Override
    public Integer call() {
        Map<String, Object> f = SftBenchmark.run(shape.settings(), System.err::println);
        Report r = new Report();
        r.line(String.format("SFT training step, %s preset (%,d parameters), B=%d × T=%d, %s engine threads:", f.get("preset"),
                (Long) f.get("params"), shape.batch, shape.seq, f.get("threads")));
        r.line(String.format("  step median %.1f ms (min %.1f, max %.1f) over %d steps", (Double) f.get("step_ms_median"),
                (Double) f.get("step_ms_min"), (Double) f.get("step_ms_max"), shape.steps));
        r.line(String.format("  %.0f tokens/s, %.1f GFLOP/s (6·N + attention per token, as the PyTorch reference counts)",
                (Double) f.get("tokens_per_s"), (Double) f.get("gflops")));
        r.line(String.format("  dense 1024³ fp32 matmul on the same engine: %.1f GFLOP/s → model at %.1f%% of it",
                (Double) f.get("matmul_gflops"), 100 * (Double) f.get("matmul_fraction")));
        f.forEach(r::put);
        r.print(json.json);
        return 0;
    }
}
