package dev.agentswarm.learner.sft;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Parameter;
import ai.djl.training.GradientCollector;
import ai.djl.training.ParameterStore;
import dev.agentswarm.learner.data.MicroBatch;
import dev.agentswarm.learner.optim.AdamW;
import dev.agentswarm.learner.optim.ModelGradients;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.InferenceThreads;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One optimizer step of supervised fine-tuning (of the whole model, or of its LoRA adapter when
 * one is attached): forward and backward over each micro-batch (the
 * gradients accumulate in the parameters' .grad), global-norm clipping, AdamW, zeroed gradients.
 *
 * <p>The loss is the token mean over every trained target of the whole accumulated batch:
 * micro-batch i contributes −Σ(mask·log p) / N with N the trained targets of all micro-batches
 * (counted on the host), so k micro-batches give the gradient of one batch of their union.
 *
 * <p>Everything a step creates lives in a sub-manager closed at its end, including the gradient
 * handles (each {@code getGradient()} is a new native handle that would otherwise stay attached to
 * the model's manager).
 */
public final class SftStep {

    /** What a step measured: the loss (before the update) and the gradient norm before clipping. */
    public record Outcome(double loss, double gradNorm) {}

    private final CausalLm model;
    private final AdamW optimizer;
    private final NDManager root;
    private final ParameterStore ps;
    private final Map<String, Parameter> params;

    public SftStep(CausalLm model, AdamW optimizer, NDManager root) {
        this.model = model;
        this.optimizer = optimizer;
        this.root = root;
        this.ps = new ParameterStore(root, false);
        this.params = model.trainableParameters(); // the adapter alone when one is attached
    }

    public Outcome run(List<MicroBatch> batches, double lr, double maxGradNorm) {
        try (NDManager step = root.newSubManager()) {
            double loss = backward(batches, step);
            Map<String, NDArray> grads = gradients(step);
            double norm = optimizer.stepClipped(grads, maxGradNorm, lr);
            zeroGradients();
            return new Outcome(loss, norm);
        }
    }

    /**
     * Forward and backward over every micro-batch, accumulating into the parameters' gradients;
     * returns the batch loss. Inputs and graphs live in {@code step}.
     */
    public double backward(List<MicroBatch> batches, NDManager step) {
        int trained = 0;
        for (MicroBatch b : batches) trained += b.trainedTokens();
        if (trained == 0) throw new IllegalArgumentException("a step with no trained token");
        // Outside the collector nothing may be recorded: the optimizer's in-place updates on leaves
        // that require grad would fail, and a non-engine thread has grad mode on by default.
        InferenceThreads.noGradHere();
        List<NDArray> losses = new ArrayList<>(batches.size());
        try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
            for (MicroBatch b : batches) {
                NDArray logp = model.tokenLogProbs(ps, b.idsArray(step), true);
                NDArray loss = logp.mul(b.maskArray(step)).sum().mul(-1f / trained);
                gc.backward(loss);
                losses.add(loss);
            }
        }
        double loss = 0;
        for (NDArray l : losses) loss += l.getFloat();
        return loss;
    }

    /** Masked mean −log p over {@code batches} without recording a graph. */
    public double evaluate(List<MicroBatch> batches) {
        InferenceThreads.noGradHere();
        double sum = 0;
        long trained = 0;
        for (MicroBatch b : batches) {
            try (NDManager step = root.newSubManager()) {
                NDArray logp = model.tokenLogProbs(ps, b.idsArray(step), false);
                sum += logp.mul(b.maskArray(step)).sum().getFloat();
                trained += b.trainedTokens();
            }
        }
        return trained == 0 ? Double.NaN : -sum / trained;
    }

    /** Each parameter's gradient, as handles owned by {@code step}. */
    public Map<String, NDArray> gradients(NDManager step) {
        return ModelGradients.collect(params, step);
    }

    public void zeroGradients() {
        ModelGradients.zero(params);
    }

    public CausalLm model() {
        return model;
    }
}
