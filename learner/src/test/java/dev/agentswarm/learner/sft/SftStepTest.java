package dev.agentswarm.learner.sft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.BaseNDManager;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.training.ParameterStore;
import dev.agentswarm.learner.data.Example;
import dev.agentswarm.learner.data.MicroBatch;
import dev.agentswarm.learner.optim.AdamW;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.InferenceThreads;
import dev.agentswarm.policy.model.ModelConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SftStepTest {

    private static final ModelConfig TINY = ModelConfig.preset("tiny");
    private static final AdamW.Settings ADAM = new AdamW.Settings(0.9, 0.95, 1e-8, 0.0);

    /** Rows of different lengths; the mask trains the second half of each row. */
    private static List<Example> examples(int rows, long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        List<Example> out = new ArrayList<>();
        for (int r = 0; r < rows; r++) {
            int len = 12 + rng.nextInt(12);
            int[] ids = new int[len];
            int[] mask = new int[len];
            for (int t = 0; t < len; t++) {
                ids[t] = 1 + rng.nextInt(200);
                mask[t] = t >= len / 2 ? 1 : 0;
            }
            out.add(new Example(ids, mask, "row" + r));
        }
        return out;
    }

    @Test
    void lossFallsClearlyOnAFixedBatch() {
        try (NDManager root = NDManager.newBaseManager()) {
            CausalLm model = CausalLm.create(TINY, root, 1);
            try (AdamW opt = new AdamW(model.namedParameters(), ADAM, root)) {
                SftStep step = new SftStep(model, opt, root);
                List<MicroBatch> batch = List.of(MicroBatch.of(examples(4, 3), 0));
                double first = step.run(batch, 1e-2, 1.0).loss();
                double last = first;
                for (int i = 0; i < 25; i++) last = step.run(batch, 1e-2, 1.0).loss();
                assertTrue(first > 5.0, "random init ≈ ln(272) = 5.6, got " + first);
                assertTrue(last < 0.5 * first, "loss " + first + " → " + last);
            }
        }
    }

    @Test
    void theLossIsTheMaskedTokenMeanAndIgnoresUntrainedTokens() {
        InferenceThreads.noGradHere();
        try (NDManager root = NDManager.newBaseManager()) {
            CausalLm model = CausalLm.create(TINY, root, 2);
            try (AdamW opt = new AdamW(model.namedParameters(), ADAM, root)) {
                SftStep step = new SftStep(model, opt, root);
                int[] ids = {5, 9, 14, 3, 77, 80, 81, 40, 41, 42, 43, 44};
                int[] mask = {0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0}; // trains tokens 3..5: targets 2..4
                MicroBatch batch = MicroBatch.of(List.of(new Example(ids, mask, "a")), 0);
                double loss;
                try (NDManager s = root.newSubManager()) {
                    loss = step.backward(List.of(batch), s);
                    step.zeroGradients();
                    float[] logp = model.tokenLogProbs(new ParameterStore(s, false), batch.idsArray(s), false).toFloatArray();
                    double expected = -(logp[2] + logp[3] + logp[4]) / 3;
                    assertEquals(expected, loss, 1e-5);
                }
                // Untrained tokens after the last trained one change neither the loss nor any gradient.
                int[] changed = ids.clone();
                for (int t = 7; t < changed.length; t++) changed[t] = 200 - t;
                MicroBatch other = MicroBatch.of(List.of(new Example(changed, mask, "b")), 0);
                try (NDManager s = root.newSubManager()) {
                    double l1 = step.backward(List.of(batch), s);
                    Map<String, NDArray> g1 = step.gradients(s);
                    List<float[]> first = g1.values().stream().map(NDArray::toFloatArray).toList();
                    step.zeroGradients();
                    double l2 = step.backward(List.of(other), s);
                    List<float[]> second = step.gradients(s).values().stream().map(NDArray::toFloatArray).toList();
                    step.zeroGradients();
                    assertEquals(l1, l2, 0.0);
                    for (int i = 0; i < first.size(); i++) assertArrayEquals(first.get(i), second.get(i), 0f);
                }
            }
        }
    }

    @Test
    void twoHalfMicroBatchesGiveTheGradientOfOneBatch() {
        try (NDManager root = NDManager.newBaseManager()) {
            CausalLm model = CausalLm.create(TINY, root, 4);
            try (AdamW opt = new AdamW(model.namedParameters(), ADAM, root)) {
                SftStep step = new SftStep(model, opt, root);
                List<Example> rows = examples(4, 11);
                List<float[]> whole, split;
                double lossWhole, lossSplit;
                try (NDManager s = root.newSubManager()) {
                    lossWhole = step.backward(List.of(MicroBatch.of(rows, 0)), s);
                    whole = step.gradients(s).values().stream().map(NDArray::toFloatArray).toList();
                    step.zeroGradients();
                    // Each half is padded to its own length: right padding must not matter.
                    lossSplit = step.backward(List.of(MicroBatch.of(rows.subList(0, 2), 0), MicroBatch.of(rows.subList(2, 4), 0)), s);
                    split = step.gradients(s).values().stream().map(NDArray::toFloatArray).toList();
                    step.zeroGradients();
                }
                assertEquals(lossWhole, lossSplit, 1e-5);
                double maxAbs = 0;
                for (int i = 0; i < whole.size(); i++) {
                    for (int j = 0; j < whole.get(i).length; j++) {
                        assertEquals(whole.get(i)[j], split.get(i)[j], 1e-6, "gradient " + i + "[" + j + "]");
                        maxAbs = Math.max(maxAbs, Math.abs(whole.get(i)[j]));
                    }
                }
                assertTrue(maxAbs > 1e-3, "gradients are not trivially zero: " + maxAbs);
            }
        }
    }

    @Test
    void stepsLeaveNoNativeArraysBehind() {
        try (NDManager root = NDManager.newBaseManager()) {
            CausalLm model = CausalLm.create(TINY, root, 5);
            try (AdamW opt = new AdamW(model.namedParameters(), ADAM, root)) {
                SftStep step = new SftStep(model, opt, root);
                List<MicroBatch> batches = List.of(MicroBatch.of(examples(2, 1), 0), MicroBatch.of(examples(2, 2), 0));
                step.run(batches, 1e-3, 1.0);
                int before = ((BaseNDManager) root).getManagedArrays().size();
                for (int i = 0; i < 4; i++) step.run(batches, 1e-3, 1.0);
                step.evaluate(batches);
                assertEquals(before, ((BaseNDManager) root).getManagedArrays().size());
            }
        }
    }
}
