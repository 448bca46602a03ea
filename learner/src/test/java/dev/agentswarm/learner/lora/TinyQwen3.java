package dev.agentswarm.learner.lora;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Parameter;
import ai.djl.training.ParameterStore;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.InferenceThreads;
import dev.agentswarm.policy.model.LoraAdapter;
import dev.agentswarm.policy.model.ModelConfig;
import dev.agentswarm.policy.model.ModelWeights;
import dev.agentswarm.policy.model.RopeScaling;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A Qwen3-shaped model small enough for unit tests: grouped-query attention (4 query heads, 2
 * key/value heads), a head size of 24 (not 64 / 4), per-head q/k norms, an untied head.
 */
public final class TinyQwen3 {

    public static final ModelConfig CONFIG = new ModelConfig("qwen3-tiny", 64, 2, 4, 2, 24, 96, 272, 256, 1_000_000,
            RopeScaling.NONE, 1e-6, true, false, false);

    private TinyQwen3() {}

    /**
     * A random model whose output head is drawn 25 times wider (N(0, 0.5²)) than the other weights: a
     * stand-in for a trained base. With the engine's N(0, 0.02²) head, whatever the frozen trunk's
     * adapters do to the normalised final state moves no logit by more than about 0.2, and no
     * adapter could learn a task; a pretrained model's head is not that flat.
     */
    public static CausalLm create(NDManager root, long seed) {
        CausalLm model = CausalLm.create(CONFIG, root, seed);
        NDArray head = model.namedParameters().get("head.weight").getArray();
        float[] v = head.toFloatArray();
        for (int i = 0; i < v.length; i++) v[i] *= 25;
        ByteBuffer bytes = ByteBuffer.allocate(v.length * 4).order(ByteOrder.nativeOrder());
        bytes.asFloatBuffer().put(v);
        ModelWeights.overwrite(head, bytes);
        return model;
    }

    /** Gives every B random values, so the adapter changes the outputs (a fresh one does not). */
    public static void randomiseB(LoraAdapter adapter, long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        for (Map.Entry<String, Parameter> e : adapter.namedParameters().entrySet()) {
            if (!e.getKey().contains("lora_B")) continue;
            NDArray b = e.getValue().getArray();
            float[] v = new float[Math.toIntExact(b.getShape().size())];
            for (int i = 0; i < v.length; i++) v[i] = (float) (0.05 * rng.nextGaussian());
            ByteBuffer bytes = ByteBuffer.allocate(v.length * 4).order(ByteOrder.nativeOrder());
            bytes.asFloatBuffer().put(v);
            ModelWeights.overwrite(b, bytes);
        }
    }

    /** Logits of a fixed batch of ids (2, 12), on the host. */
    public static float[] logits(CausalLm model, NDManager root) {
        InferenceThreads.noGradHere();
        try (NDManager m = root.newSubManager()) {
            SplittableRandom rng = new SplittableRandom(42);
            long[] ids = rng.longs(24, 0, model.config().vocab()).toArray();
            return model.logits(new ParameterStore(m, false), m.create(ids, new Shape(2, 12)), false).toFloatArray();
        }
    }

    /** A copy of every base weight. */
    public static Map<String, float[]> snapshot(CausalLm model) {
        Map<String, float[]> out = new LinkedHashMap<>();
        model.namedParameters().forEach((k, p) -> out.put(k, p.getArray().toFloatArray()));
        return out;
    }

    /** Every base weight bit-identical to {@code before}. */
    public static void assertUnchanged(Map<String, float[]> before, CausalLm model) {
        Map<String, float[]> now = snapshot(model);
        assertEquals(before.keySet(), now.keySet());
        for (String k : before.keySet()) assertArrayEquals(before.get(k), now.get(k), 0f, k + " changed");
    }

    public static float maxAbsDiff(float[] a, float[] b) {
        assertEquals(a.length, b.length);
        float max = 0;
        for (int i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i] - b[i]));
        return max;
    }
}
