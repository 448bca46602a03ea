package dev.agentswarm.learner.rl;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.nn.Parameter;
import ai.djl.training.GradientCollector;
import ai.djl.training.ParameterStore;
import dev.agentswarm.learner.data.Example;
import dev.agentswarm.learner.data.MicroBatch;
import dev.agentswarm.learner.optim.AdamW;
import dev.agentswarm.learner.optim.ModelGradients;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.InferenceThreads;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One DPO optimizer step over preference pairs: each micro-batch runs its chosen and rejected
 * completions in one forward, sums each completion's token log-probs, and adds its share of the
 * batch's sigmoid loss against reference log-probs computed once beforehand
 * ({@link #referenceLogProbs}, TRL's {@code precompute_ref_log_probs}), so no reference model stays
 * in memory while training.
 */
public final class DpoStep {

    /**
     * The batch's loss and its pairs' statistics (before the update); {@code gradNorm} is before
     * clipping, {@code nll} the chosen answers' NLL per token (NaN without the RPO term).
     */
    public record Outcome(double loss, double gradNorm, double accuracy, double margin, double nll) {}

    /** Summed completion log-probs of one pair under the reference policy. */
    public record Reference(float chosen, float rejected) {}

    private final CausalLm model;
    private final AdamW optimizer;
    private final NDManager root;
    private final DpoLoss loss;
    private final ParameterStore ps;
    private final Map<String, Parameter> params;

    public DpoStep(CausalLm model, AdamW optimizer, NDManager root, DpoLoss loss) {
        this.model = model;
        this.optimizer = optimizer;
        this.root = root;
        this.loss = loss;
        this.ps = new ParameterStore(root, false);
        this.params = model.trainableParameters(); // the adapter alone when one is attached
    }

    /** The summed log-probs of each pair's completions under {@code reference} (often the policy before training). */
    public static List<Reference> referenceLogProbs(CausalLm reference, NDManager root, List<PreferencePair> pairs, int pairsPerPass, int padId) {
        InferenceThreads.noGradHere();
        ParameterStore store = new ParameterStore(root, false);
        List<Reference> out = new ArrayList<>();
        for (int i = 0; i < pairs.size(); i += pairsPerPass) {
            List<PreferencePair> part = pairs.subList(i, Math.min(pairs.size(), i + pairsPerPass));
            try (NDManager pass = root.newSubManager()) {
                float[] sums = sequenceLogProbs(reference, store, pass, part, padId, false).toFloatArray();
                for (int p = 0; p < part.size(); p++) out.add(new Reference(sums[p], sums[part.size() + p]));
            }
        }
        return out;
    }

    /**
     * One step over {@code pairs} (with their references, in the same order), in micro-batches of
     * at most {@code pairsPerPass} pairs.
     */
    public Outcome run(List<PreferencePair> pairs, List<Reference> references, int pairsPerPass, int padId, double lr, double maxGradNorm) {
        if (pairs.isEmpty()) throw new IllegalArgumentException("a DPO step with no pairs");
        if (pairs.size() != references.size()) throw new IllegalArgumentException("one reference per pair");
        InferenceThreads.noGradHere();
        try (NDManager step = root.newSubManager()) {
            double total = 0;
            double accuracy = 0;
            double margin = 0;
            double nll = 0; // NaN throughout without the RPO term
            try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
                for (int i = 0; i < pairs.size(); i += pairsPerPass) {
                    int end = Math.min(pairs.size(), i + pairsPerPass);
                    List<PreferencePair> part = pairs.subList(i, end);
                    int n = part.size();
                    NDArray sums = sequenceLogProbs(model, ps, step, part, padId, true);
                    float[] refChosen = new float[n];
                    float[] refRejected = new float[n];
                    long chosenTokens = 0;
                    for (int p = 0; p < n; p++) {
                        refChosen[p] = references.get(i + p).chosen();
                        refRejected[p] = references.get(i + p).rejected();
                        chosenTokens += part.get(p).chosen().length;
                    }
                    DpoLoss.Terms t = loss.compute(sums.get(new NDIndex("0:{}", n)), sums.get(new NDIndex("{}:", n)), step.create(refChosen),
                            step.create(refRejected), chosenTokens);
                    double share = (double) n / pairs.size(); // the mean over the batch, accumulated
                    gc.backward(t.loss().mul((float) share));
                    total += t.loss().getFloat() * share;
                    accuracy += t.accuracy() * share;
                    margin += t.margin() * share;
                    nll += t.nll() * share;
                }
            }
            Map<String, NDArray> grads = ModelGradients.collect(params, step);
            double norm = optimizer.stepClipped(grads, maxGradNorm, lr);
            ModelGradients.zero(params);
            return new Outcome(total, norm, accuracy, margin, nll);
        }
    }

    /** (2n): the chosen completions' summed log-probs, then the rejected ones', in one forward. */
    private static NDArray sequenceLogProbs(CausalLm model, ParameterStore store, NDManager m, List<PreferencePair> pairs, int padId,
                                            boolean training) {
        List<Example> rows = new ArrayList<>();
        for (PreferencePair p : pairs) rows.add(Example.completion(p.prompt(), p.chosen(), "chosen"));
        for (PreferencePair p : pairs) rows.add(Example.completion(p.prompt(), p.rejected(), "rejected"));
        MicroBatch b = MicroBatch.of(rows, padId);
        return model.tokenLogProbs(store, b.idsArray(m), training).mul(b.maskArray(m)).sum(new int[] {1});
    }
}
