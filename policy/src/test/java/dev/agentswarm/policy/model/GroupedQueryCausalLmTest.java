package dev.agentswarm.policy.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Parameter;
import java.util.SplittableRandom;

/**
 * Every {@link CausalLmTest} again on the layout of Hugging Face's Qwen and Llama checkpoints:
 * grouped-query attention (4 query heads over 2 key/value heads), a head size (24) that is not
 * d / heads (16), Qwen3's q/k norms, Qwen2's q/k/v biases, an untied output head and Llama-3's
 * rotary scaling. Norm gains and biases are drawn away from 1 and 0 so that none can be skipped
 * unnoticed.
 */
class GroupedQueryCausalLmTest extends CausalLmTest {

    static final ModelConfig SHAPE = new ModelConfig("gqa-test", 64, 2, 4, 2, 24, 96, 272, 256, 10_000,
            RopeScaling.llama3(8, 1, 4, 32), 1e-6, true, true, false);

    @Override
    ModelConfig config() {
        return SHAPE;
    }

    @Override
    CausalLm build(NDManager manager) {
        CausalLm model = CausalLm.create(SHAPE, manager, 7);
        SplittableRandom rng = new SplittableRandom(11);
        for (Parameter p : model.namedParameters().values()) {
            if (p.getType() == Parameter.Type.WEIGHT) continue;
            NDArray array = p.getArray();
            float[] values = array.toFloatArray();
            float center = p.getType() == Parameter.Type.BIAS ? 0f : 1f;
            for (int i = 0; i < values.length; i++) values[i] = center + (float) (0.3 * rng.nextGaussian());
            array.set(values);
        }
        return model;
    }
}
