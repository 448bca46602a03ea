package dev.agentswarm.app.bench;

import ai.djl.ndarray.NDManager;
import dev.agentswarm.learner.optim.AdamW;
import dev.agentswarm.learner.rl.GroupAdvantages;
import dev.agentswarm.learner.rl.GrpoStep;
import dev.agentswarm.policy.model.LoraAdapter;
import dev.agentswarm.policy.model.LoraSettings;
import dev.agentswarm.learner.rl.PolicyLoss;
import dev.agentswarm.learner.rl.RlMicroBatch;
import dev.agentswarm.learner.rl.RlSample;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.ModelConfig;
import ai.djl.nn.Parameter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * Times GRPO learner steps (forward, dapo loss with clip-higher 0.2/0.28, backward, global-norm clip
 * 1.0, AdamW) on the plain-PyTorch reference's batch (peers/pytorch-ref/grpo.py): B = 16 sequences
 * of T tokens, 4 prompts × 4 generations, the prompt the first 40 %, completions of half to all of
 * the rest, padded; advantages scaled by group from random rewards; the dense 1024³ matmul beside it.
 */
public final class LearnerBenchmark {

    /**
     * What a step trains. {@code FULL}: every weight of the model (full fine-tuning). {@code LORA}: a
     * rank-16 adapter (alpha 32, no dropout) on all seven linear modules, the base frozen; the rest
     * of the step is the same.
     */
    public enum Tuning {
        FULL, LORA;

        public static Tuning parse(String s) {
            for (Tuning t : values()) if (t.name().equalsIgnoreCase(s)) return t;
            throw new IllegalArgumentException("--tuning " + s + " is not known (known: full, lora)");
        }
    }

    /** The adapter {@link Tuning#LORA} trains: PEFT's common choice for these models. */
    static final LoraSettings BENCH_LORA = LoraSettings.allLinear(16, 32, 0.0);

    private LearnerBenchmark() {}

    /** The preset of {@code s} with fresh weights, every weight trained. */
    public static Map<String, Object> run(SftBenchmark.Settings s, int generations, Consumer<String> log) {
        return run(s, null, Tuning.FULL, generations, log);
    }

    /**
     * @param modelDir a Hugging Face folder whose weights are trained instead of the preset's fresh
     *     ones, or null; its load time and the log-prob checksum of {@link BenchModel} are reported
     *     (bench/pytorch-ref-qwen3/grpo.py is the other side)
     */
    public static Map<String, Object> run(SftBenchmark.Settings s, Path modelDir, Tuning tuning, int generations,
                                          Consumer<String> log) {
        if (generations < 2 || s.batch() % generations != 0) {
            throw new IllegalArgumentException("--generations must be >= 2 and divide --batch");
        }
        ModelConfig presetShape = SftBenchmark.shape(s);
        try (NDManager root = NDManager.newBaseManager()) {
            CausalLm model;
            BenchModel.Opened opened = null;
            if (modelDir == null) {
                model = CausalLm.create(presetShape, root, 1);
            } else {
                log.accept("loading " + modelDir);
                opened = BenchModel.load(modelDir, root, s.seq());
                model = opened.model();
            }
            ModelConfig config = model.config();
            Map<String, Object> f = SftBenchmark.header(config, s);
            if (opened != null) BenchModel.describe(f, modelDir, opened, root);
            f.put("tuning", tuning.name().toLowerCase(java.util.Locale.ROOT));
            f.put("generations", generations);
            List<RlSample> samples = referenceBatch(s.batch(), generations, s.seq(), config.vocab());
            f.put("completion_tokens", samples.stream().mapToInt(RlSample::trainedTokens).sum());
            Map<String, Parameter> trained = trainable(model, tuning, root);
            f.put("trained_parameters", trained.values().stream().mapToLong(p -> p.getArray().getShape().size()).sum());
            try (AdamW optimizer = new AdamW(trained, new AdamW.Settings(0.9, 0.999, 1e-8, 0.0), root)) {
                GrpoStep step = new GrpoStep(model, null, optimizer, root,
                        new PolicyLoss(new PolicyLoss.Settings(PolicyLoss.Type.DAPO, 0.2, 0.28, 0, 0)));
                List<RlMicroBatch> batch = List.of(RlMicroBatch.of(samples, 0));
                int maxCompletion = s.seq() - prompt(s.seq());
                SftBenchmark.timeSteps(f, s, config, root, () -> step.run(batch, 1e-4, 1.0, 1, maxCompletion), log);
            }
            return f;
        }
    }

    /** The parameters the optimizer updates under {@code tuning}, by name (attaching the adapter for LoRA). */
    static Map<String, Parameter> trainable(CausalLm model, Tuning tuning, NDManager root) {
        return switch (tuning) {
            case FULL -> model.namedParameters();
            case LORA -> {
                LoraAdapter.attach(model, BENCH_LORA, root, 1);
                yield model.trainableParameters();
            }
        };
    }

    private static int prompt(int seq) {
        return seq - (int) (0.6 * seq);
    }

    /** The reference's shape: shared prompts per group, completion lengths in [C/2, C], the first one full so rows are T long. */
    static List<RlSample> referenceBatch(int rows, int generations, int seq, int vocab) {
        SplittableRandom rng = new SplittableRandom(1);
        int p = prompt(seq);
        int c = seq - p;
        double[][] rewards = new double[rows / generations][generations];
        for (double[] g : rewards) for (int i = 0; i < generations; i++) g[i] = rng.nextDouble();
        double[][] adv = GroupAdvantages.compute(rewards, GroupAdvantages.Scale.GROUP);
        List<RlSample> out = new ArrayList<>();
        int[] promptIds = null;
        for (int r = 0; r < rows; r++) {
            if (r % generations == 0) promptIds = rng.ints(p, 1, vocab).toArray();
            int len = r == 0 ? c : c / 2 + rng.nextInt(c - c / 2 + 1);
            out.add(RlSample.of(promptIds, rng.ints(len, 1, vocab).toArray(), new float[len], adv[r / generations][r % generations]));
        }
        return out;
    }
}
