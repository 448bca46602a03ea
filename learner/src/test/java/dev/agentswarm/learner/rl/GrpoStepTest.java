package dev.agentswarm.learner.rl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import dev.agentswarm.learner.optim.AdamW;
import dev.agentswarm.policy.embedded.BatchGenerator;
import dev.agentswarm.policy.embedded.GeneratorSettings;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.ModelConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * GRPO on a seeded toy task with the tiny model, sampling with the real batch generator: the reward
 * of a completion is the share of its tokens below 128 (one half at random initialisation). Held-out
 * prompts are never trained on.
 */
class GrpoStepTest {

    private static final ModelConfig TINY = ModelConfig.preset("tiny");
    private static final AdamW.Settings ADAM = new AdamW.Settings(0.9, 0.99, 1e-8, 0.0);
    @Test
    void thirtyStepsRaiseTheHeldOutRewardFarBeyondItsNoise() {
        try (NDManager root = NDManager.newBaseManager()) {
            CausalLm model = CausalLm.create(TINY, root, 3);
            try (AdamW opt = new AdamW(model.namedParameters(), ADAM, root);
                 BatchGenerator gen = new BatchGenerator(model, root, new GeneratorSettings(128, 1024, 4096, 9,
                         GeneratorSettings.Decoder.ENGINE, 0), id -> new byte[] {(byte) id}, 256, 0)) {
                GrpoStep step = new GrpoStep(model, null, opt, root,
                        new PolicyLoss(new PolicyLoss.Settings(PolicyLoss.Type.DAPO, 0.2, 0.28, 0, 0)));
                List<int[]> heldout = ToyGrpoTask.prompts(99, 16);
                double before = ToyGrpoTask.meanReward(gen, heldout);
                List<int[]> train = ToyGrpoTask.prompts(1, 64);
                for (int s = 0; s < 30; s++) {
                    List<int[]> batch = train.subList((s * 8) % 64, (s * 8) % 64 + 8);
                    List<RlSample> samples = ToyGrpoTask.samples(gen, batch);
                    GrpoStep.Outcome o = step.run(RlMicroBatch.split(samples, 32, 0), 3e-3, 1.0, 1, ToyGrpoTask.MAX_TOKENS);
                    assertEquals(1.0, o.meanRatio(), 1e-4, "one iteration: the ratio is 1 by construction");
                    assertEquals(0, o.clipFraction(), 1e-9);
                }
                double after = ToyGrpoTask.meanReward(gen, heldout);
                // 16 prompts × 8 samples × 8 tokens: the noise of a mean near 0.5 is about 0.016.
                assertTrue(before > 0.35 && before < 0.65, "random start near one half, got " + before);
                assertTrue(after > before + 0.2, "held-out reward " + before + " → " + after);
            }
        }
    }

    @Test
    void aSecondIterationMovesTheRatioAndZeroAdvantagesMoveNothing() {
        try (NDManager root = NDManager.newBaseManager()) {
            CausalLm model = CausalLm.create(TINY, root, 4);
            try (AdamW opt = new AdamW(model.namedParameters(), ADAM, root)) {
                GrpoStep step = new GrpoStep(model, null, opt, root,
                        new PolicyLoss(new PolicyLoss.Settings(PolicyLoss.Type.DAPO, 0.2, 0.28, 0, 0)));
                SplittableRandom rng = new SplittableRandom(5);
                List<RlSample> samples = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    samples.add(RlSample.of(rng.ints(5, 0, 256).toArray(), rng.ints(6, 0, 256).toArray(), new float[6], i % 2 == 0 ? 1 : -1));
                }
                GrpoStep.Outcome second = step.run(RlMicroBatch.split(samples, 3, 0), 5e-2, 1.0, 2, 6);
                assertTrue(Math.abs(second.meanRatio() - 1) > 1e-3, "after one update the ratio moves: " + second);
                assertEquals(48, second.tokens());
                List<RlSample> flat = samples.stream().map(s -> new RlSample(s.ids(), s.trained(), s.samplerLogprobs(), 0)).toList();
                GrpoStep.Outcome none = step.run(RlMicroBatch.split(flat, 8, 0), 5e-2, 1.0, 1, 6);
                assertEquals(0, none.loss(), 1e-9);
                assertEquals(0, none.gradNorm(), 1e-9, "no advantage, no gradient");
            }
        }
    }
}
