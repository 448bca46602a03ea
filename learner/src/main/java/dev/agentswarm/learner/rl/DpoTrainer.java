package dev.agentswarm.learner.rl;

import ai.djl.ndarray.NDManager;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import dev.agentswarm.learner.optim.AdamW;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.LoraAdapter;
import dev.agentswarm.policy.model.LoraSettings;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * DPO over a fixed set of preference pairs (seed 001's recipe): the reference log-probs are the
 * policy's own before the first update, computed once, so no second model is kept; then
 * {@code steps} AdamW updates, each over {@code pairs-per-step} pairs drawn in shuffled epochs.
 * Single-threaded, like every DJL trainer here.
 *
 * <p>With {@link LoraSettings} it attaches a LoRA adapter and trains only that; the reference is the
 * base, the adapter switched off (as TRL does with a PEFT model), again with no second model.
 */
public final class DpoTrainer implements AutoCloseable {

    /** The {@code agentswarm.learner.dpo} block, TRL's names where TRL has them. */
    public record Settings(double beta, double rpoAlpha, double learningRate, int steps, int pairsPerStep, int pairsPerPass,
                           double maxGradNorm, AdamW.Settings adam, long seed) {

        public static final String PATH = "agentswarm.learner.dpo";

        public Settings {
            if (!(beta > 0)) throw new IllegalArgumentException(PATH + ".beta must be > 0, got " + beta);
            if (!(rpoAlpha >= 0)) throw new IllegalArgumentException(PATH + ".rpo-alpha must be >= 0 (0 = plain DPO), got " + rpoAlpha);
            if (!(learningRate > 0)) throw new IllegalArgumentException(PATH + ".learning-rate must be > 0, got " + learningRate);
            if (steps < 1) throw new IllegalArgumentException(PATH + ".steps must be >= 1, got " + steps);
            if (pairsPerStep < 1) throw new IllegalArgumentException(PATH + ".pairs-per-step must be >= 1, got " + pairsPerStep);
            if (pairsPerPass < 1) throw new IllegalArgumentException(PATH + ".pairs-per-pass must be >= 1, got " + pairsPerPass);
            if (maxGradNorm < 0) throw new IllegalArgumentException(PATH + ".max-grad-norm must be >= 0 (0 = no clipping), got " + maxGradNorm);
        }

        public static Settings fromConfig(Config root) {
            Config c = root.getConfig(PATH);
            try {
                AdamW.Settings adam = AdamW.Settings.fromConfig(c.getConfig("adam"), PATH + ".adam");
                return new Settings(c.getDouble("beta"), c.getDouble("rpo-alpha"), c.getDouble("learning-rate"), c.getInt("steps"), c.getInt("pairs-per-step"),
                        c.getInt("pairs-per-pass"), c.getDouble("max-grad-norm"), adam, c.getLong("seed"));
            } catch (ConfigException e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            }
        }
    }

    /** One update's figures, measured before it. */
    public record StepResult(int step, double loss, double accuracy, double margin, double nll, double gradNorm, double seconds) {}

    public interface Listener {
        void onStep(StepResult result);
    }

    private final Settings settings;
    private final AdamW optimizer;
    private final DpoStep step;
    private final NDManager root;
    private final CausalLm model;
    /** The trained LoRA adapter, or null for full fine-tuning. */
    private final LoraAdapter adapter;
    private final int padId;

    public DpoTrainer(CausalLm model, NDManager root, Settings settings, int padId) {
        this(model, root, settings, padId, null);
    }

    /** @param lora the adapter to attach and train (A drawn with the run's seed), or null to train every weight */
    public DpoTrainer(CausalLm model, NDManager root, Settings settings, int padId, LoraSettings lora) {
        this.adapter = lora == null ? null : LoraAdapter.attach(model, lora, root, settings.seed());
        this.settings = settings;
        this.model = model;
        this.root = root;
        this.padId = padId;
        this.optimizer = new AdamW(model.trainableParameters(), settings.adam(), root);
        this.step = new DpoStep(model, optimizer, root, new DpoLoss(settings.beta(), settings.rpoAlpha()));
    }

    /**
     * Trains on {@code pairs} for the configured steps; without an adapter the model must still be
     * the reference policy, with one the reference is its base.
     */
    public List<StepResult> train(List<PreferencePair> pairs, Listener listener) {
        if (pairs.isEmpty()) throw new IllegalArgumentException("DPO needs at least one preference pair");
        List<DpoStep.Reference> refs = referenceLogProbs(pairs);
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < pairs.size(); i++) order.add(i);
        Random rnd = new Random(settings.seed());
        int next = order.size(); // forces a shuffle first
        List<StepResult> results = new ArrayList<>();
        for (int s = 1; s <= settings.steps(); s++) {
            List<PreferencePair> batch = new ArrayList<>();
            List<DpoStep.Reference> batchRefs = new ArrayList<>();
            int want = Math.min(settings.pairsPerStep(), pairs.size());
            while (batch.size() < want) {
                if (next == order.size()) {
                    Collections.shuffle(order, rnd);
                    next = 0;
                }
                int i = order.get(next++);
                batch.add(pairs.get(i));
                batchRefs.add(refs.get(i));
            }
            long t0 = System.nanoTime();
            DpoStep.Outcome o = step.run(batch, batchRefs, settings.pairsPerPass(), padId, settings.learningRate(), settings.maxGradNorm());
            StepResult r = new StepResult(s, o.loss(), o.accuracy(), o.margin(), o.nll(), o.gradNorm(), (System.nanoTime() - t0) / 1e9);
            results.add(r);
            listener.onStep(r);
        }
        return results;
    }

    /** The pairs' summed log-probs under the reference: the model, or its base when it has an adapter. */
    public List<DpoStep.Reference> referenceLogProbs(List<PreferencePair> pairs) {
        if (adapter == null) return DpoStep.referenceLogProbs(model, root, pairs, settings.pairsPerPass(), padId);
        try (LoraAdapter.Off base = adapter.disabled()) {
            return DpoStep.referenceLogProbs(model, root, pairs, settings.pairsPerPass(), padId);
        }
    }

    /** The LoRA adapter being trained, or null. */
    public LoraAdapter adapter() {
        return adapter;
    }

    @Override
    public void close() {
        optimizer.close();
    }
}
