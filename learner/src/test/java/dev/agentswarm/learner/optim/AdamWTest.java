package dev.agentswarm.learner.optim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.BaseNDManager;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Parameter;
import dev.agentswarm.policy.model.InferenceThreads;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AdamWTest {

    private static final AdamW.Settings SETTINGS = new AdamW.Settings(0.9, 0.999, 1e-8, 0.01);

    @Test
    void firstTwoStepsMatchAHandComputation() {
        InferenceThreads.noGradHere();
        try (NDManager root = NDManager.newBaseManager()) {
            Parameter w = parameter(root, "w", Parameter.Type.WEIGHT, 1.0f, -2.0f);
            Parameter gain = parameter(root, "gain", Parameter.Type.GAMMA, 1.0f, -2.0f);
            NDArray wArray = w.getArray();
            try (AdamW opt = new AdamW(Map.of("w", w, "gain", gain), SETTINGS, root)) {
                assertTrue(opt.decays("w"));
                assertFalse(opt.decays("gain"));
                opt.step(grads(root, 0.5f, -0.1f), 0.1);
                // m = 0.1 g, v = 0.001 g²; corrected m̂ = g, v̂ = g², so the step is lr · g/|g| = ±0.1.
                // Decay first: w · (1 − 0.1 · 0.01) = [0.999, −1.998]; then −0.1 · [1, −1].
                assertArrayEquals(new float[] {0.899f, -1.898f}, w.getArray().toFloatArray(), 1e-6f);
                assertArrayEquals(new float[] {0.9f, -1.9f}, gain.getArray().toFloatArray(), 1e-6f); // no decay on gains
                assertSame(wArray, w.getArray(), "updated in place");

                opt.step(grads(root, 0.2f, 0.3f), 0.1);
                // Step 2 by hand: m = 0.9·0.1·g1 + 0.1·g2, v = 0.999·0.001·g1² + 0.001·g2²,
                // w ← w·0.999 − 0.1/(1−0.81) · m / (sqrt(v/(1−0.999²)) + 1e-8).
                double[] expected = new double[2];
                double[] g1 = {0.5, -0.1}, g2 = {0.2, 0.3}, w1 = {0.899, -1.898};
                for (int i = 0; i < 2; i++) {
                    double m = 0.9 * 0.1 * g1[i] + 0.1 * g2[i];
                    double v = 0.999 * 0.001 * g1[i] * g1[i] + 0.001 * g2[i] * g2[i];
                    expected[i] = w1[i] * 0.999 - 0.1 / (1 - 0.81) * m / (Math.sqrt(v / (1 - 0.999 * 0.999)) + 1e-8);
                }
                float[] got = w.getArray().toFloatArray();
                assertEquals(expected[0], got[0], 1e-5);
                assertEquals(expected[1], got[1], 1e-5);
                assertEquals(2, opt.stepCount());
            }
        }
    }

    @Test
    void stateRoundTripsThroughSafetensorsAndContinuesIdentically(@TempDir Path dir) throws Exception {
        InferenceThreads.noGradHere();
        try (NDManager root = NDManager.newBaseManager()) {
            Parameter a = parameter(root, "a", Parameter.Type.WEIGHT, 1f, 2f);
            Parameter b = parameter(root, "b", Parameter.Type.WEIGHT, 1f, 2f);
            try (AdamW first = new AdamW(Map.of("w", a), SETTINGS, root);
                 AdamW second = new AdamW(Map.of("w", b), SETTINGS, root)) {
                first.step(grads(root, "w", 0.3f, -0.7f), 0.05);
                first.save(dir.resolve("opt.safetensors"));
                b.getArray().set(a.getArray().toFloatArray());
                second.load(dir.resolve("opt.safetensors"));
                assertEquals(1, second.stepCount());
                first.step(grads(root, "w", 0.1f, 0.2f), 0.05);
                second.step(grads(root, "w", 0.1f, 0.2f), 0.05);
                assertArrayEquals(a.getArray().toFloatArray(), b.getArray().toFloatArray(), 0f);
            }
        }
    }

    @Test
    void aStepLeavesNoArraysBehind() {
        InferenceThreads.noGradHere();
        try (NDManager root = NDManager.newBaseManager()) {
            Parameter w = parameter(root, "w", Parameter.Type.WEIGHT, 1f, 2f);
            try (AdamW opt = new AdamW(Map.of("w", w), SETTINGS, root); NDManager step = root.newSubManager()) {
                Map<String, NDArray> g = new LinkedHashMap<>();
                g.put("w", step.create(new float[] {0.1f, 0.2f}));
                opt.step(g, 0.1);
                int before = ((BaseNDManager) root).getManagedArrays().size();
                for (int i = 0; i < 5; i++) opt.step(g, 0.1);
                assertEquals(before, ((BaseNDManager) root).getManagedArrays().size());
            }
        }
    }

    @Test
    void aGradientThatIsNotFiniteIsNotApplied() {
        InferenceThreads.noGradHere();
        try (NDManager root = NDManager.newBaseManager()) {
            Parameter w = parameter(root, "w", Parameter.Type.WEIGHT, 1.0f, -2.0f);
            Parameter gain = parameter(root, "gain", Parameter.Type.GAMMA, 1.0f, -2.0f);
            try (AdamW opt = new AdamW(Map.of("w", w, "gain", gain), SETTINGS, root)) {
                double norm = opt.stepClipped(grads(root, Float.NaN, 0.1f), 1.0, 0.1);
                assertTrue(Double.isNaN(norm));
                assertArrayEquals(new float[] {1.0f, -2.0f}, w.getArray().toFloatArray(), 0f, "weights untouched");
                assertEquals(1, opt.skippedNonFinite());
                opt.stepClipped(grads(root, 0.5f, -0.1f), 1.0, 0.1);
                assertArrayEquals(new float[] {0.899f, -1.898f}, w.getArray().toFloatArray(), 1e-6f, "the next finite step is a first step");
            }
        }
    }

    private static Parameter parameter(NDManager m, String name, Parameter.Type type, float... values) {
        Parameter p = Parameter.builder().setName(name).setType(type).build();
        p.setArray(m.create(values));
        return p;
    }

    private static Map<String, NDArray> grads(NDManager m, float... g) {
        Map<String, NDArray> out = new LinkedHashMap<>();
        out.put("w", m.create(g));
        out.put("gain", m.create(g));
        return out;
    }

    private static Map<String, NDArray> grads(NDManager m, String name, float... g) {
        return Map.of(name, m.create(g));
    }
}
