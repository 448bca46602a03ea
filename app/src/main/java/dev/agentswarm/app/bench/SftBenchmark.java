package dev.agentswarm.app.bench;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.jni.JniUtils;
import dev.agentswarm.learner.data.MicroBatch;
import dev.agentswarm.learner.optim.AdamW;
import dev.agentswarm.learner.sft.SftStep;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.InferenceThreads;
import dev.agentswarm.policy.model.ModelConfig;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * Times full SFT training steps (forward, backward, global-norm clip, AdamW, zeroed gradients) on
 * random tokens, the shape of the plain-PyTorch reference (peers/pytorch-ref/grpo.py: small preset,
 * B=16, T=256), and a dense 1024³ fp32 matmul on the same engine in the same run, so the model's
 * GFLOP/s can be read as a fraction of what the machine's BLAS gives right now.
 */
public final class SftBenchmark {

    public record Settings(String preset, int batch, int seq, int steps, int warmup) {}

    private static final int MATMUL_N = 1024;

    private SftBenchmark() {}

    public static Map<String, Object> run(Settings s, Consumer<String> log) {
        ModelConfig config = shape(s);
        Map<String, Object> f = header(config, s);
        try (NDManager root = NDManager.newBaseManager()) {
            CausalLm model = CausalLm.create(config, root, 1);
            try (AdamW optimizer = new AdamW(model.namedParameters(), new AdamW.Settings(0.9, 0.999, 1e-8, 0.0), root)) {
                SftStep step = new SftStep(model, optimizer, root);
                List<MicroBatch> batch = List.of(randomBatch(s.batch(), s.seq(), config.vocab()));
                timeSteps(f, s, config, root, () -> step.run(batch, 1e-4, 1.0), log);
            }
        }
        return f;
    }

    /** The model shape of these settings (the preset, its context raised to the sequence length when needed). */
    static ModelConfig shape(Settings s) {
        if (s.batch() < 1 || s.seq() < 2 || s.steps() < 1 || s.warmup() < 0) {
            throw new IllegalArgumentException("--batch ≥ 1, --seq ≥ 2, --steps ≥ 1 and --warmup ≥ 0 are needed");
        }
        ModelConfig preset = ModelConfig.preset(s.preset());
        Engine.getEngine("PyTorch");
        InferenceThreads.noGradHere();
        return s.seq() > preset.context() ? preset.withContext(s.seq()) : preset;
    }

    static Map<String, Object> header(ModelConfig config, Settings s) {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("preset", config.name());
        f.put("params", config.parameters());
        f.put("batch", s.batch());
        f.put("seq", s.seq());
        f.put("threads", JniUtils.getNumThreads());
        return f;
    }

    /**
     * Times {@code step} (B × T tokens, padding included, as the reference counts them) after the
     * warm-up, then the matmul: step times, tokens/s, GFLOP/s and their fraction of the matmul's.
     */
    static void timeSteps(Map<String, Object> f, Settings s, ModelConfig config, NDManager root, Runnable step, Consumer<String> log) {
        for (int i = 0; i < s.warmup(); i++) step.run();
        double[] ms = new double[s.steps()];
        for (int i = 0; i < s.steps(); i++) {
            long t0 = System.nanoTime();
            step.run();
            ms[i] = (System.nanoTime() - t0) / 1e6;
        }
        Arrays.sort(ms);
        double median = median(ms);
        long tokens = (long) s.batch() * s.seq();
        double gflops = config.trainingFlopsPerToken(s.seq()) * tokens / (median / 1e3) / 1e9;
        f.put("step_ms_median", round(median));
        f.put("step_ms_min", round(ms[0]));
        f.put("step_ms_max", round(ms[ms.length - 1]));
        f.put("tokens_per_s", round(tokens / (median / 1e3)));
        f.put("gflops", round(gflops));
        log.accept(String.format("training step: median %.1f ms over %d steps", median, s.steps()));
        double matmul = matmulGflops(root);
        f.put("matmul_gflops", round(matmul));
        f.put("matmul_fraction", Math.round(gflops / matmul * 1e4) / 1e4);
    }

    /** Random ids in [1, vocab) with every target trained, as the reference's completion-heavy batch. */
    static MicroBatch randomBatch(int rows, int length, int vocab) {
        SplittableRandom rng = new SplittableRandom(1);
        long[] ids = new long[rows * length];
        for (int i = 0; i < ids.length; i++) ids[i] = 1 + rng.nextInt(vocab - 1);
        float[] mask = new float[rows * (length - 1)];
        Arrays.fill(mask, 1f);
        return new MicroBatch(ids, mask, rows, length, mask.length);
    }

    /** Median GFLOP/s of C = A·B, n = 1024, timed for about a second after a warm-up. */
    static double matmulGflops(NDManager root) {
        try (NDManager m = root.newSubManager()) {
            NDArray a = m.randomNormal(new Shape(MATMUL_N, MATMUL_N));
            NDArray b = m.randomNormal(new Shape(MATMUL_N, MATMUL_N));
            for (int i = 0; i < 3; i++) a.matMul(b).close();
            long t0 = System.nanoTime();
            a.matMul(b).close();
            double one = (System.nanoTime() - t0) / 1e9;
            int runs = (int) Math.max(10, Math.min(200, 1.0 / one));
            double[] s = new double[runs];
            for (int i = 0; i < runs; i++) {
                long t = System.nanoTime();
                a.matMul(b).close();
                s[i] = (System.nanoTime() - t) / 1e9;
            }
            Arrays.sort(s);
            return 2.0 * MATMUL_N * MATMUL_N * MATMUL_N / median(s) / 1e9;
        }
    }

    static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    static double round(double v) {
        return Math.round(v * 10) / 10.0;
    }
}
