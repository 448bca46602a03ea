package dev.agentswarm.learner.optim;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Parameter;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.jni.JniUtils;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The gradients accumulated in a model's parameters. Each {@code getGradient()} is a new native
 * handle that would otherwise stay attached to the model's manager, so they are attached to the
 * caller's step manager and closed with it.
 */
public final class ModelGradients {

    private ModelGradients() {}

    /** Each parameter's gradient, as handles owned by {@code step}. */
    public static Map<String, NDArray> collect(Map<String, Parameter> params, NDManager step) {
        Map<String, NDArray> grads = new LinkedHashMap<>();
        for (Map.Entry<String, Parameter> e : params.entrySet()) {
            NDArray g = e.getValue().getArray().getGradient();
            g.attach(step);
            grads.put(e.getKey(), g);
        }
        return grads;
    }

    /** Zeroes every gradient in place, ready for the next accumulation. */
    public static void zero(Map<String, Parameter> params) {
        for (Parameter p : params.values()) JniUtils.zeroGrad((PtNDArray) p.getArray());
    }
}
