package dev.agentswarm.learner.rl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.learner.optim.AdamW;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.ModelConfig;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DpoTrainerTest {

    private static final AdamW.Settings ADAM = DpoStepTest.ADAM;

    private static List<PreferencePair> pairs(long seed, int n) {
        return DpoStepTest.pairs(seed, n);
    }

    @Test
    void trainsFromTheModelItselfAsReferenceAndReportsEveryStep() {
        try (NDManager root = NDManager.newBaseManager()) {
            CausalLm model = CausalLm.create(ModelConfig.preset("tiny"), root, 3);
            DpoTrainer.Settings s = new DpoTrainer.Settings(0.1, 0, 3e-3, 20, 12, 6, 1.0, ADAM, 5);
            List<DpoTrainer.StepResult> seen = new ArrayList<>();
            List<DpoTrainer.StepResult> results;
            try (DpoTrainer trainer = new DpoTrainer(model, root, s, 0)) {
                // 30 pairs, 12 a step: the draw wraps into reshuffled epochs.
                results = trainer.train(pairs(1, 30), seen::add);
            }
            assertEquals(20, results.size());
            assertEquals(results, seen, "the listener sees each step as it happens");
            assertEquals(Math.log(2), results.get(0).loss(), 1e-4, "the first step's policy is the reference");
            assertTrue(results.get(19).loss() < 0.45, "loss after 20 steps: " + results.get(19).loss());
            assertTrue(results.get(19).accuracy() > 0.9, "pair accuracy " + results.get(19).accuracy());
        }
    }

    @Test
    void settingsAreReadAndCheckedByName() {
        var c = ConfigFactory.parseString("agentswarm.learner.dpo { beta = 0.2, rpo-alpha = 0.5, learning-rate = 1e-4, steps = 3, pairs-per-step = 8,"
                + " pairs-per-pass = 4, max-grad-norm = 1.0, seed = 2, adam { beta1 = 0.9, beta2 = 0.99, eps = 1e-8, weight-decay = 0 } }");
        DpoTrainer.Settings s = DpoTrainer.Settings.fromConfig(c);
        assertEquals(0.2, s.beta());
        assertEquals(0.5, s.rpoAlpha());
        assertEquals(3, s.steps());
        var negative = assertThrows(IllegalArgumentException.class,
                () -> DpoTrainer.Settings.fromConfig(ConfigFactory.parseString("agentswarm.learner.dpo.rpo-alpha = -1").withFallback(c)));
        assertTrue(negative.getMessage().contains("agentswarm.learner.dpo.rpo-alpha"), negative.getMessage());
        var bad = assertThrows(IllegalArgumentException.class,
                () -> DpoTrainer.Settings.fromConfig(ConfigFactory.parseString("agentswarm.learner.dpo.beta = 0").withFallback(c)));
        assertTrue(bad.getMessage().contains("agentswarm.learner.dpo.beta"), bad.getMessage());
        try (NDManager root = NDManager.newBaseManager()) {
            CausalLm model = CausalLm.create(ModelConfig.preset("tiny"), root, 3);
            try (DpoTrainer t = new DpoTrainer(model, root, s, 0)) {
                assertThrows(IllegalArgumentException.class, () -> t.train(List.of(), r -> {}));
            }
        }
    }
}
