package dev.agentswarm.learner.rl;

import ai.djl.ndarray.NDManager;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.learner.sft.Checkpoints;
import java.io.IOException;
import java.nio.file.Path;
import dev.agentswarm.core.protocol.Turn;
import dev.agentswarm.learner.optim.AdamW;
import dev.agentswarm.policy.chat.ChatFormat;
import dev.agentswarm.policy.hf.PeftAdapter;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.LoraAdapter;
import dev.agentswarm.policy.model.LoraSettings;
import dev.agentswarm.policy.model.ModelWeights;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The learner's work without a mailbox: finished groups in, one GRPO update, the new weights out
 * with the next version. Single-threaded (the learner actor's dispatcher has one thread). With
 * {@code beta > 0} it keeps a frozen copy of the policy it started from as the KL reference (TRL's
 * {@code ref_model}); checkpoints carry it, so a resumed run stays anchored to the same start.
 *
 * <p>With {@link LoraSettings} it attaches a LoRA adapter and trains only that: the base stays frozen
 * and is also the KL reference (the adapter switched off, no copy); the published weights are
 * merged (base + (alpha/r)·B·A), so policy servers need no adapter; checkpoints add the adapter in
 * PEFT's format beside the (unchanged) base weights.
 */
public final class GrpoTrainer implements AutoCloseable {

    /** One call's outcome: the weights when the policy changed (null when every group was dropped), and the metrics. */
    public record Result(long step, long version, byte[] weights, Map<String, Double> metrics) {}

    /** Draws the adapter's A matrices; a resumed run loads them instead. */
    static final long ADAPTER_SEED = 0;

    private final CausalLm model;
    /** The trained LoRA adapter, or null for full fine-tuning. */
    private final LoraAdapter adapter;
    /** The starting policy, frozen, when β > 0 (the model itself when it has an adapter); null otherwise. */
    private final CausalLm reference;
    private final NDManager referenceMemory;
    private final GrpoSettings settings;
    private final AdamW optimizer;
    private final GrpoStep step;
    private final RolloutGroups groups;
    private final int padId;
    private long version;
    private long steps;
    private Checkpoints.ModelExport export;
    /** Checkpoints kept, the newest; 0 = all of them. */
    private int keepCheckpoints;

    public GrpoTrainer(CausalLm model, NDManager root, GrpoSettings settings, ChatFormat template, long version) {
        this(model, root, settings, template, version, null);
    }

    /** @param lora the adapter to attach and train, or null to train every weight */
    public GrpoTrainer(CausalLm model, NDManager root, GrpoSettings settings, ChatFormat template, long version, LoraSettings lora) {
        this.model = model;
        this.settings = settings;
        this.adapter = lora == null ? null : LoraAdapter.attach(model, lora, root, ADAPTER_SEED);
        if (adapter != null) {
            referenceMemory = null;
            reference = settings.loss().beta() > 0 ? model : null;
        } else if (settings.loss().beta() > 0) {
            referenceMemory = root.newSubManager();
            reference = CausalLm.create(model.config(), referenceMemory, 0);
            ModelWeights.copy(model, reference);
        } else {
            referenceMemory = null;
            reference = null;
        }
        this.optimizer = new AdamW(model.trainableParameters(), settings.adam(), root);
        this.step = new GrpoStep(model, reference, optimizer, root, new PolicyLoss(settings.loss()));
        this.groups = new RolloutGroups(settings.groups(), new TurnPrompts(template));
        this.padId = template.tokenizer().padId();
        this.version = version;
    }

    public long version() {
        return version;
    }

    /** Checkpoints also write the weights with {@code export} (a Hugging Face model's own layout) into {@code hf/}. */
    public void exportCheckpointsWith(Checkpoints.ModelExport export) {
        this.export = export;
    }

    /** Each checkpoint then removes all but the {@code keep} newest (0 = keep them all). */
    public void keepCheckpoints(int keep) {
        if (keep < 0) throw new IllegalArgumentException("keep-checkpoints must be 0 (all) or more, not " + keep);
        this.keepCheckpoints = keep;
    }

    /**
     * Writes {@code checkpoints/step-<n>/} under {@code runDir}: the weights (stamped with the
     * version), AdamW's moments and state.json with the step, the version and {@code dataCursor}.
     */
    public Path checkpoint(Path runDir, long dataCursor) throws IOException {
        ObjectNode state = Json.object().put("step", steps).put("version", version).put("data_cursor", dataCursor);
        return Checkpoints.save(runDir, steps, version, model, reference == model ? null : reference, adapter, optimizer, state, export,
                keepCheckpoints);
    }

    /** Where a checkpoint written by {@link #checkpoint} stands: its state.json, checked. */
    public record Resume(long step, long version, long dataCursor) {

        public static Resume read(Path checkpoint) throws IOException {
            JsonNode state = Checkpoints.readJson(checkpoint);
            if (!state.path("step").canConvertToLong() || !state.path("version").canConvertToLong()) {
                throw new IllegalArgumentException(checkpoint.resolve(Checkpoints.STATE) + " needs step and version");
            }
            return new Resume(state.get("step").asLong(), state.get("version").asLong(), state.path("data_cursor").asLong());
        }
    }

    /**
     * Continues from {@code checkpoint}, whose state was read as {@code at}: its optimizer moments,
     * step, version and, with β > 0, its reference policy. The model must already hold the
     * checkpoint's weights (it was loaded from them).
     */
    public void restore(Path checkpoint, Resume at) throws IOException {
        if (adapter != null) {
            Path saved = checkpoint.resolve(Checkpoints.ADAPTER);
            if (!java.nio.file.Files.isDirectory(saved)) {
                throw new IllegalArgumentException(checkpoint + " has no " + Checkpoints.ADAPTER + "/: it was written without LoRA");
            }
            PeftAdapter.loadInto(adapter, saved);
        } else if (reference != null) {
            Path saved = checkpoint.resolve(Checkpoints.REFERENCE);
            if (!java.nio.file.Files.isRegularFile(saved)) {
                throw new IllegalArgumentException(checkpoint + " has no " + Checkpoints.REFERENCE + ": it was written with "
                        + GrpoSettings.PATH + ".beta = 0, so the run's starting policy for the KL term is not known");
            }
            ModelWeights.load(reference, saved);
        }
        optimizer.load(checkpoint.resolve(Checkpoints.OPTIMIZER));
        steps = at.step();
        version = at.version();
    }

    /** The LoRA adapter being trained, or null. */
    public LoraAdapter adapter() {
        return adapter;
    }

    public long steps() {
        return steps;
    }

    public Result train(List<List<Trajectory>> finished) {
        long t0 = System.nanoTime();
        RolloutGroups.Batch batch = groups.samples(finished);
        Map<String, Double> m = new LinkedHashMap<>();
        m.put("reward_mean", batch.meanReward());
        m.put("groups_kept", (double) batch.groupsKept());
        m.put("groups_dropped", (double) batch.groupsDropped());
        m.put("groups_dropped_unscored", (double) batch.groupsUnscored());
        m.put("turns_masked", (double) batch.turnsMasked());
        staleness(finished, m);
        rolloutFacts(finished, m);
        if (batch.samples().isEmpty()) return new Result(steps, version, null, m);
        GrpoStep.Outcome o = step.run(RlMicroBatch.split(batch.samples(), settings.microBatchRows(), padId), settings.learningRate(),
                settings.maxGradNorm(), settings.numIterations(), // 0 = no clipping, as GradClipping reads it
                settings.groups().maxCompletionTokens());
        steps++;
        version++;
        long t1 = System.nanoTime();
        byte[] weights = ModelWeights.exportMerged(model, version); // what servers decode with: no adapter there
        m.put("loss", o.loss());
        m.put("grad_norm", o.gradNorm());
        m.put("clip_fraction", o.clipFraction());
        m.put("kl", o.kl());
        m.put("entropy", o.entropy());
        m.put("ratio_mean", o.meanRatio());
        m.put("tokens", (double) o.tokens());
        m.put("samples", (double) batch.samples().size());
        m.put("step_ms", (t1 - t0) / 1e6);
        m.put("export_ms", (System.nanoTime() - t1) / 1e6);
        m.put("tokens_per_s", o.tokens() / ((t1 - t0) / 1e9));
        return new Result(steps, version, weights, m);
    }

    /**
     * What the batch's episodes did: each reward component's mean ({@code reward_<name>}, so
     * {@code reward_pass} is the pass rate), the tool success rate and the tokens generated per episode.
     */
    private static void rolloutFacts(List<List<Trajectory>> finished, Map<String, Double> m) {
        Map<String, Double> sums = new java.util.TreeMap<>();
        long episodes = 0;
        long calls = 0;
        long successes = 0;
        long tokens = 0;
        for (List<Trajectory> g : finished) {
            for (Trajectory t : g) {
                episodes++;
                if (t.reward() != null) t.reward().components().forEach((k, v) -> sums.merge(k, v, Double::sum));
                if (t.stats() != null) {
                    calls += t.stats().toolCalls();
                    successes += t.stats().toolSuccesses();
                    tokens += t.stats().completionTokens();
                }
            }
        }
        if (episodes == 0) return;
        for (Map.Entry<String, Double> e : sums.entrySet()) m.put("reward_" + e.getKey(), e.getValue() / episodes);
        m.put("tool_success_rate", calls == 0 ? 0.0 : (double) successes / calls);
        m.put("completion_tokens_mean", (double) tokens / episodes);
    }

    /** How many versions behind the learner each assistant turn was sampled: mean and max. */
    private void staleness(List<List<Trajectory>> finished, Map<String, Double> m) {
        long sum = 0;
        long max = 0;
        long n = 0;
        for (List<Trajectory> g : finished) {
            for (Trajectory t : g) {
                for (Turn turn : t.assistantTurns()) {
                    long behind = Math.max(0, version - turn.policyVersion());
                    sum += behind;
                    max = Math.max(max, behind);
                    n++;
                }
            }
        }
        m.put("staleness_mean", n == 0 ? 0 : (double) sum / n);
        m.put("staleness_max", (double) max);
    }

    @Override
    public void close() {
        optimizer.close();
        if (referenceMemory != null) referenceMemory.close();
    }
}
