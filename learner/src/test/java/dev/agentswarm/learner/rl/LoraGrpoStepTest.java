package dev.agentswarm.learner.rl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import dev.agentswarm.learner.lora.TinyQwen3;
import dev.agentswarm.learner.optim.AdamW;
import dev.agentswarm.policy.embedded.BatchGenerator;
import dev.agentswarm.policy.embedded.GeneratorSettings;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.LoraAdapter;
import dev.agentswarm.policy.model.LoraSettings;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * GRPO through a LoRA adapter on a Qwen3-shaped model, on GrpoStepTest's toy task (reward: the share
 * of completion tokens below 128). The KL reference is the base itself, the adapter switched off.
 * Sampling asks for the hybrid decoder, which steps aside for the engine while the adapter is live.
 */
class LoraGrpoStepTest {

    private static final AdamW.Settings ADAM = new AdamW.Settings(0.9, 0.99, 1e-8, 0.0);
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
                List<int[]> heldout = ToyGrpoTask.prompts(99, 16);
                double before = ToyGrpoTask.meanReward(gen, heldout);
                List<int[]> train = ToyGrpoTask.prompts(1, 64);
                double firstKl = Double.NaN;
                double lastKl = 0;
                for (int s = 0; s < 12; s++) {
                    List<int[]> batch = train.subList((s * 8) % 64, (s * 8) % 64 + 8);
                    List<RlSample> samples = ToyGrpoTask.samples(gen, batch);
                    GrpoStep.Outcome o = step.run(RlMicroBatch.split(samples, 32, 0), 3e-3, 1.0, 1, ToyGrpoTask.MAX_TOKENS);
                    if (s == 0) firstKl = o.kl();
                    lastKl = o.kl();
                }
                double after = ToyGrpoTask.meanReward(gen, heldout);
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
