package dev.agentswarm.learner.rl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import dev.agentswarm.core.protocol.SamplingParams;
import dev.agentswarm.learner.lora.TinyQwen3;
import dev.agentswarm.learner.optim.AdamW;
import dev.agentswarm.policy.embedded.BatchGenerator;
import dev.agentswarm.policy.embedded.Generation;
import dev.agentswarm.policy.embedded.GenerationRequest;
import dev.agentswarm.policy.embedded.GeneratorSettings;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.LoraAdapter;
import dev.agentswarm.policy.model.LoraSettings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * GRPO through a LoRA adapter on a Qwen3-shaped model, on GrpoStepTest's toy task (reward: the share
 * of completion tokens below 128). The KL reference is the base itself, the adapter switched off.
 * Sampling asks for the hybrid decoder, which steps aside for the engine while the adapter is live.
 */
class LoraGrpoStepTest {

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
    void theAdapterLearnsTheTaskAndTheBaseStaysBitIdentical() {
        try (NDManager root = NDManager.newBaseManager()) {
            CausalLm model = TinyQwen3.create(root, 3);
            Map<String, float[]> base = TinyQwen3.snapshot(model);
            LoraAdapter adapter = LoraAdapter.attach(model, LoraSettings.allLinear(8, 16, 0.0), root, 11);
            try (AdamW opt = new AdamW(model.trainableParameters(), ADAM, root);
                 BatchGenerator gen = new BatchGenerator(model, root, new GeneratorSettings(128, 1024, 4096, 9,
                         GeneratorSettings.Decoder.HYBRID, 64), id -> new byte[] {(byte) id}, 256, 0)) {
                GrpoStep step = new GrpoStep(model, model, opt, root,
                        new PolicyLoss(new PolicyLoss.Settings(PolicyLoss.Type.DAPO, 0.2, 0.28, 0.01, 0)));
                List<int[]> heldout = prompts(99, 16);
                double before = meanReward(gen, heldout);
                List<int[]> train = prompts(1, 64);
                double firstKl = Double.NaN;
                double lastKl = 0;
                for (int s = 0; s < 12; s++) {
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
                    if (s == 0) firstKl = o.kl();
                    lastKl = o.kl();
                }
                double after = meanReward(gen, heldout);
                assertEquals(0, firstKl, 1e-6, "B = 0 at the start: the policy is its base");
                assertTrue(lastKl > 1e-4, "the adapter has moved the policy away from its base: kl " + lastKl);
                assertTrue(before > 0.35 && before < 0.65, "random start near one half, got " + before);
                assertTrue(after > before + 0.15, "held-out reward " + before + " → " + after);
                TinyQwen3.assertUnchanged(base, model);
                for (var p : model.namedParameters().values()) assertTrue(!p.getArray().hasGradient(), "no gradient on " + p.getName());
            }
        }
    }
}
