package dev.agentswarm.learner.rl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import dev.agentswarm.core.protocol.SamplingParams;
import dev.agentswarm.learner.optim.AdamW;
import dev.agentswarm.policy.embedded.BatchGenerator;
import dev.agentswarm.policy.embedded.Generation;
import dev.agentswarm.policy.embedded.GenerationRequest;
import dev.agentswarm.policy.embedded.GeneratorSettings;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.ModelConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
    private static final int GROUP = 8;
    private static final int MAX_TOKENS = 8;

    private static double reward(int[] tokens) {
        int low = 0;
        for (int t : tokens) if (t < 128) low++;
        return (double) low / tokens.length;
    }

    private static List<int[]> prompts(long seed, int n) {
        SplittableRandom rng = new SplittableRandom(seed);
        List<int[]> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add(rng.ints(4, 0, 256).toArray());
        return out;
    }

    /** {@code samples} completions of each prompt, in prompt order. */
    private static List<Generation> generate(BatchGenerator g, List<int[]> prompts, int samples) {
        long id = 0;
        for (int[] p : prompts) {
            for (int k = 0; k < samples; k++) g.submit(new GenerationRequest(id++, p, new SamplingParams(1.0, 1.0, 0, MAX_TOKENS, List.of(), null), null));
        }
        Map<Long, Generation> done = new HashMap<>();
        while (g.hasWork()) for (Generation x : g.step()) done.put(x.id(), x);
        List<Generation> out = new ArrayList<>();
        for (long i = 0; i < id; i++) out.add(done.get(i));
        return out;
    }

    private static double meanReward(BatchGenerator g, List<int[]> prompts) {
        double sum = 0;
        List<Generation> gens = generate(g, prompts, GROUP);
        for (Generation x : gens) sum += reward(x.tokens());
        return sum / gens.size();
    }

    @Test
    void thirtyStepsRaiseTheHeldOutRewardFarBeyondItsNoise() {
        try (NDManager root = NDManager.newBaseManager()) {
            CausalLm model = CausalLm.create(TINY, root, 3);
            try (AdamW opt = new AdamW(model.namedParameters(), ADAM, root);
                 BatchGenerator gen = new BatchGenerator(model, root, new GeneratorSettings(128, 1024, 4096, 9,
                         GeneratorSettings.Decoder.ENGINE, 0), id -> new byte[] {(byte) id}, 256, 0)) {
                GrpoStep step = new GrpoStep(model, null, opt, root,
                        new PolicyLoss(new PolicyLoss.Settings(PolicyLoss.Type.DAPO, 0.2, 0.28, 0, 0)));
                List<int[]> heldout = prompts(99, 16);
                double before = meanReward(gen, heldout);
                List<int[]> train = prompts(1, 64);
                for (int s = 0; s < 30; s++) {
                    List<int[]> batch = train.subList((s * 8) % 64, (s * 8) % 64 + 8);
                    List<Generation> gens = generate(gen, batch, GROUP);
                    double[][] rewards = new double[batch.size()][GROUP];
                    for (int i = 0; i < gens.size(); i++) rewards[i / GROUP][i % GROUP] = reward(gens.get(i).tokens());
                    double[][] adv = GroupAdvantages.compute(rewards, GroupAdvantages.Scale.GROUP);
                    List<RlSample> samples = new ArrayList<>();
                    for (int i = 0; i < gens.size(); i++) {
                        Generation x = gens.get(i);
                        samples.add(RlSample.of(batch.get(i / GROUP), x.tokens(), x.logprobs(), adv[i / GROUP][i % GROUP]));
                    }
                    GrpoStep.Outcome o = step.run(RlMicroBatch.split(samples, 32, 0), 3e-3, 1.0, 1, MAX_TOKENS);
                    assertEquals(1.0, o.meanRatio(), 1e-4, "one iteration: the ratio is 1 by construction");
                    assertEquals(0, o.clipFraction(), 1e-9);
                }
                double after = meanReward(gen, heldout);
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
