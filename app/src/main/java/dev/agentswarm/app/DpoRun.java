package dev.agentswarm.app;

import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.json.MetricsLog;
import dev.agentswarm.learner.TrainingMemory;
import dev.agentswarm.policy.hf.PeftAdapter;
import dev.agentswarm.policy.model.LoraAdapter;
import dev.agentswarm.policy.model.LoraSettings;
import dev.agentswarm.learner.rl.DpoTrainer;
import dev.agentswarm.learner.rl.PreferencePair;
import dev.agentswarm.learner.sft.Checkpoints;
import dev.agentswarm.policy.embedded.EmbeddedModel;
import dev.agentswarm.policy.model.ModelWeights;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import me.tongfei.progressbar.ProgressBar;

/**
 * DPO of an embedded model on preference pairs, as the demo and {@code swarm dpo} run it: every step
 * to {@code metrics.jsonl} with a progress bar, then the weights to {@code model.safetensors}, stamped
 * with the model's version plus the steps taken.
 */
public final class DpoRun {

    public record Outcome(List<DpoTrainer.StepResult> steps, Path weights, double trainSeconds) {
        public DpoTrainer.StepResult first() {
            return steps.get(0);
        }

        public DpoTrainer.StepResult last() {
            return steps.get(steps.size() - 1);
        }
    }

    private DpoRun() {}

    public static Outcome train(EmbeddedModel model, List<PreferencePair> pairs, DpoTrainer.Settings settings, Path dir) throws IOException {
        return train(model, pairs, settings, null, dir);
    }

    /**
     * @param lora an adapter to train instead of every weight (null: full fine-tuning). The result is
     *     then written three ways: adapter/ in PEFT's layout, and the merged weights as model.safetensors
     *     and, for a Hugging Face model, hf/.
     */
    public static Outcome train(EmbeddedModel model, List<PreferencePair> pairs, DpoTrainer.Settings settings, LoraSettings lora,
                                Path dir) throws IOException {
        if (pairs.isEmpty()) throw new IllegalArgumentException("no preference pairs to train on");
        int longest = pairs.stream().mapToInt(p -> p.prompt().length + Math.max(p.chosen().length, p.rejected().length)).max().orElse(1);
        var shape = model.model().config();
        // Chosen and rejected side by side; in full fine-tuning the reference model beside the trained one.
        TrainingMemory.estimate(shape, 2 * settings.pairsPerPass(), longest, lora == null,
                lora == null ? shape.parameters() : LoraAdapter.parameterCount(shape, lora))
                .requireFits((lora == null ? "DPO full fine-tuning of " : "DPO LoRA training of ") + shape.name());
        Files.createDirectories(dir);
        List<DpoTrainer.StepResult> steps;
        try (DpoTrainer trainer = new DpoTrainer(model.model(), model.manager(), settings, model.template().tokenizer().padId(), lora);
             MetricsLog metrics = MetricsLog.appendOnly(dir.resolve("metrics.jsonl"));
             ProgressBar bar = EpisodeRuns.progressBar("dpo", settings.steps())) {
            steps = trainer.train(pairs, r -> {
                var line = Json.object().put("step", r.step()).put("loss", r.loss()).put("accuracy", r.accuracy())
                        .put("margin", r.margin()).put("grad_norm", r.gradNorm()).put("step_s", r.seconds());
                if (!Double.isNaN(r.nll())) line.put("nll", r.nll()); // with rpo-alpha
                metrics.append(line);
                bar.stepTo(r.step());
                bar.setExtraMessage(String.format(" loss %.3f, accuracy %.2f", r.loss(), r.accuracy()));
            });
            if (trainer.adapter() != null) {
                PeftAdapter.save(trainer.adapter(), dir.resolve(Checkpoints.ADAPTER),
                        model.modelDir() == null ? null : model.modelDir().toAbsolutePath().toString());
                trainer.adapter().mergeAndUnload(); // what servers load: base + adapter in one set of weights
            }
        }
        Path weights = dir.resolve(Checkpoints.MODEL);
        ModelWeights.save(model.model(), model.version() + settings.steps(), weights);
        if (model.modelDir() != null) model.saveHf(model.model(), dir.resolve(Checkpoints.HF)); // what transformers and vLLM load
        return new Outcome(steps, weights, steps.stream().mapToDouble(DpoTrainer.StepResult::seconds).sum());
    }
}
