package dev.agentswarm.learner.sft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import dev.agentswarm.learner.data.Example;
import dev.agentswarm.learner.data.MicroBatch;
import dev.agentswarm.learner.lora.TinyQwen3;
import dev.agentswarm.learner.optim.AdamW;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.LoraAdapter;
import dev.agentswarm.policy.model.LoraSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Supervised fine-tuning of a LoRA adapter alone: the loss falls, the optimizer holds only A and B, the base stays. */
class LoraSftStepTest {

    @Test
    void theAdapterFitsAFixedBatch() {
        try (NDManager root = NDManager.newBaseManager()) {
            CausalLm model = TinyQwen3.create(root, 1);
            Map<String, float[]> base = TinyQwen3.snapshot(model);
            LoraAdapter adapter = LoraAdapter.attach(model, LoraSettings.allLinear(8, 16, 0), root, 2);
            try (AdamW opt = new AdamW(model.trainableParameters(), new AdamW.Settings(0.9, 0.95, 1e-8, 0.01), root)) {
                SftStep step = new SftStep(model, opt, root);
                SplittableRandom rng = new SplittableRandom(3);
                List<Example> rows = new ArrayList<>();
                for (int r = 0; r < 4; r++) {
                    int[] ids = rng.ints(16, 1, 200).toArray();
                    int[] mask = new int[16];
                    for (int t = 8; t < 16; t++) mask[t] = 1;
                    rows.add(new Example(ids, mask, "row" + r));
                }
                List<MicroBatch> batch = List.of(MicroBatch.of(rows, 0));
                double first = step.run(batch, 1e-2, 1.0).loss();
                double last = first;
                for (int i = 0; i < 20; i++) last = step.run(batch, 1e-2, 1.0).loss();
                assertTrue(last < 0.5 * first, "loss " + first + " → " + last);
                assertEquals(adapter.namedParameters().keySet(), step.gradients(root).keySet(), "gradients of A and B only");
                TinyQwen3.assertUnchanged(base, model);
            }
        }
    }
}
