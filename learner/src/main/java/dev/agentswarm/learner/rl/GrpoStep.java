package dev.agentswarm.learner.rl;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Parameter;
import ai.djl.training.GradientCollector;
import ai.djl.training.ParameterStore;
import dev.agentswarm.learner.optim.AdamW;
import dev.agentswarm.learner.optim.ModelGradients;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.InferenceThreads;
import dev.agentswarm.policy.model.LoraAdapter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The optimizer steps of one GRPO batch: {@code num-iterations} passes (μ), each a forward and
 * backward over every micro-batch (gradients accumulate), global-norm clipping and AdamW. The ratio
 * is taken against the learner's own log-probs before the batch's first update (with one iteration
 * they are the current ones, detached, so no extra forward is needed); the sampler's log-probs only
 * weigh tokens when truncated importance sampling is on; a frozen reference model is run once per
 * batch when β > 0.
 */
public final class GrpoStep {

    /**
     * The last iteration's loss and what it measured; {@code gradNorm} is before clipping, {@code entropy}
     * the mean entropy of the policy's next-token distribution over the trained tokens.
     */
    public record Outcome(double loss, double gradNorm, double clipFraction, double kl, double meanRatio, double entropy, long tokens) {}

    private final CausalLm model;
    private final CausalLm reference;
    private final AdamW optimizer;
    private final NDManager root;
    private final PolicyLoss loss;
    private final ParameterStore ps;
    private final Map<String, Parameter> params;

    /**
     * @param reference the frozen reference policy for the KL term, or null when β is 0; {@code model}
     *     itself when it carries a LoRA adapter: the reference is then its base, the adapter switched off
     */
    public GrpoStep(CausalLm model, CausalLm reference, AdamW optimizer, NDManager root, PolicyLoss loss) {
        if (loss.settings().beta() > 0 && reference == null) throw new IllegalArgumentException("beta > 0 needs a reference model");
        if (reference == model && model.adapter() == null) {
            throw new IllegalArgumentException("the model is its own reference only through a LoRA adapter (the base is the reference)");
        }
        this.model = model;
        this.reference = reference;
        this.optimizer = optimizer;
        this.root = root;
        this.loss = loss;
        this.ps = new ParameterStore(root, false);
        this.params = model.trainableParameters(); // the adapter alone when one is attached
    }

    public Outcome run(List<RlMicroBatch> batches, double lr, double maxGradNorm, int iterations, int maxCompletionLength) {
        if (batches.isEmpty()) throw new IllegalArgumentException("a GRPO step with no samples");
        if (iterations < 1) throw new IllegalArgumentException("num-iterations must be >= 1, got " + iterations);
        long tokens = 0;
        int sequences = 0;
        for (RlMicroBatch b : batches) {
            tokens += b.tokens().trainedTokens();
            sequences += b.tokens().rows();
        }
        PolicyLoss.Batch shape = new PolicyLoss.Batch(tokens, sequences, batches.size(), maxCompletionLength);
        InferenceThreads.noGradHere();
        try (NDManager batch = root.newSubManager()) {
            List<NDArray> masks = new ArrayList<>();
            List<NDArray> olds = new ArrayList<>();
            List<NDArray> refs = new ArrayList<>();
            for (RlMicroBatch b : batches) {
                NDArray x = b.tokens().idsArray(batch);
                masks.add(b.tokens().maskArray(batch));
                olds.add(iterations > 1 ? model.tokenLogProbs(ps, x, false) : null);
                refs.add(reference != null && loss.settings().beta() > 0 ? referenceLogProbs(x) : null);
            }
            Outcome last = null;
            for (int it = 0; it < iterations; it++) {
                try (NDManager step = batch.newSubManager()) {
                    double total = 0;
                    double clipped = 0;
                    double kl = 0;
                    double ratio = 0;
                    double entropy = 0;
                    try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
                        for (int i = 0; i < batches.size(); i++) {
                            RlMicroBatch b = batches.get(i);
                            // A manager per micro-batch: its activations are freed once its backward has run, so
                            // memory holds one micro-batch's, not every micro-batch's until the optimizer step.
                            try (NDManager micro = step.newSubManager()) {
                                NDArray[] scored = model.tokenLogProbsAndEntropy(ps, b.tokens().idsArray(micro), true);
                                NDArray logp = scored[0];
                                entropy += scored[1].mul(masks.get(i)).sum().getFloat();
                                NDArray old = olds.get(i) != null ? olds.get(i) : logp.stopGradient();
                                NDArray sampler = loss.settings().tisCap() > 0 ? b.samplerArray(micro) : null;
                                PolicyLoss.Terms t = loss.compute(logp, old, sampler, refs.get(i), b.advantagesArray(micro), masks.get(i), shape);
                                gc.backward(t.loss());
                                total += t.loss().getFloat();
                                clipped += t.clippedTokens();
                                kl += t.klSum();
                                ratio += t.ratioSum();
                            }
                        }
                    }
                    Map<String, NDArray> grads = ModelGradients.collect(params, step);
                    double norm = optimizer.stepClipped(grads, maxGradNorm, lr);
                    ModelGradients.zero(params);
                    double n = Math.max(1, tokens);
                    last = new Outcome(total, norm, clipped / n, kl / n, ratio / n, entropy / n, tokens);
                }
            }
            return last;
        }
    }

    private NDArray referenceLogProbs(NDArray ids) {
        if (reference != model) return reference.tokenLogProbs(ps, ids, false);
        try (LoraAdapter.Off base = model.adapter().disabled()) {
            return model.tokenLogProbs(ps, ids, false);
        }
    }
}
