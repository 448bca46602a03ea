package dev.agentswarm.learner.rl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import dev.agentswarm.learner.lora.TinyQwen3;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.LoraSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** DPO through a LoRA adapter: the reference is the base (adapter off), which never changes. */
class LoraDpoTrainerTest {

    @Test
    void theLossFallsTheBaseStaysAndTheReferenceIsTheBase() {
        try (NDManager root = NDManager.newBaseManager()) {
            CausalLm model = TinyQwen3.create(root, 7);
            CausalLm untouched = TinyQwen3.create(root, 7); // the same base, never given an adapter
            Map<String, float[]> base = TinyQwen3.snapshot(model);
            List<PreferencePair> pairs = DpoStepTest.pairs(1, 30);
            DpoTrainer.Settings s = new DpoTrainer.Settings(0.1, 0, 1e-2, 20, 12, 6, 1.0, DpoStepTest.ADAM, 5);
            List<DpoTrainer.StepResult> results = new ArrayList<>();
            try (DpoTrainer trainer = new DpoTrainer(model, root, s, 0, LoraSettings.allLinear(8, 16, 0.05))) {
                trainer.train(pairs, results::add);
                assertEquals(Math.log(2), results.get(0).loss(), 1e-4, "B = 0: the policy starts at its reference");
                double last = (results.get(17).loss() + results.get(18).loss() + results.get(19).loss()) / 3;
                assertTrue(last < 0.45, "loss " + results.get(0).loss() + " → " + last);
                TinyQwen3.assertUnchanged(base, model);

                List<DpoStep.Reference> reference = trainer.referenceLogProbs(pairs);
                List<DpoStep.Reference> ofBase = DpoStep.referenceLogProbs(untouched, root, pairs, 6, 0);
                List<DpoStep.Reference> ofPolicy = DpoStep.referenceLogProbs(model, root, pairs, 6, 0);
                double moved = 0;
                for (int i = 0; i < pairs.size(); i++) {
                    assertEquals(ofBase.get(i).chosen(), reference.get(i).chosen(), 0f, "pair " + i);
                    assertEquals(ofBase.get(i).rejected(), reference.get(i).rejected(), 0f, "pair " + i);
                    moved = Math.max(moved, Math.abs(ofPolicy.get(i).chosen() - ofBase.get(i).chosen()));
                }
                assertTrue(moved > 0.1, "the trained policy differs from its reference: " + moved);
            }
        }
    }
}
