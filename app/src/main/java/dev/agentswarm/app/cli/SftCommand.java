package dev.agentswarm.app.cli;

import dev.agentswarm.app.EpisodeRuns;
import dev.agentswarm.learner.data.ArithmeticConversations;
import dev.agentswarm.learner.sft.SftConfig;
import dev.agentswarm.learner.sft.SftTrainer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import me.tongfei.progressbar.ProgressBar;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "sft", mixinStandardHelpOptions = true,
        description = {"Supervised fine-tuning of the embedded model on chat conversations (Hugging Face messages JSONL).",
                "Train:  swarm sft --config conf/sft-arithmetic.conf",
                "Resume: swarm sft --resume runs/sft-arithmetic",
                "Data:   swarm sft --make-sample data.jsonl --n 2000 --seed 1   (synthetic calculator conversations)"})
public final class SftCommand implements Callable<Integer> {

    @Option(names = "--config", paramLabel = "FILE", description = "HOCON file with an agentswarm.sft block.")
    Path config;

    @Option(names = "--resume", paramLabel = "RUN_DIR",
            description = "Continue the run in RUN_DIR from its latest checkpoint (its own sft.conf unless --config is given).")
    Path resume;

    @Option(names = "--max-steps", paramLabel = "N", description = "Override agentswarm.sft.max-steps.")
    Integer maxSteps;

    @Option(names = "--make-sample", paramLabel = "FILE",
            description = "Write --n synthetic arithmetic tool-use conversations to FILE and exit.")
    Path makeSample;

    @Option(names = "--n", defaultValue = "2000", description = "Conversations for --make-sample (default ${DEFAULT-VALUE}).")
    int n;

    @Option(names = "--seed", defaultValue = "1", description = "Seed for --make-sample (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--model", paramLabel = "DIR", description = "Fine-tune a Hugging Face model folder (Qwen3, Qwen2.5, Llama-3) with its own"
            + " tokenizer and chat template (agentswarm.sft.model-dir).")
    Path model;

    @Option(names = "--template-var", paramLabel = "KEY=VALUE", description = "A chat-template variable for --model (repeatable), e.g. enable_thinking=false.")
    java.util.Map<String, String> templateVariables = new java.util.LinkedHashMap<>();

    @Mixin
    LoraOptions lora;

    @Mixin
    JsonOption json;

    @Override
    public Integer call() throws Exception {
        if (makeSample != null) {
            if (n < 1) throw new IllegalArgumentException("--n must be ≥ 1, got " + n);
            ArithmeticConversations.write(makeSample, n, seed);
            Report r = new Report().line("wrote " + n + " conversations to " + makeSample).put("file", makeSample.toString()).put("n", n);
            r.print(json.json);
            return 0;
        }
        if (config == null && resume == null) throw new IllegalArgumentException("give --config FILE, or --resume RUN_DIR");
        SftConfig cfg = config != null ? SftConfig.load(config) : SftTrainer.configOf(resume);
        if (resume != null) cfg = cfg.withRunDir(resume);
        cfg = cfg.withLora(lora.apply(cfg.source().atPath(SftConfig.PATH), SftConfig.PATH + ".lora"));
        if (model != null) {
            java.util.Map<String, Object> vars = new java.util.LinkedHashMap<>();
            templateVariables.forEach((k, v) -> vars.put(k, WeightsOptions.value(v)));
            cfg = cfg.withModelDir(model, vars);
        } else if (!templateVariables.isEmpty()) {
            throw new IllegalArgumentException("--template-var applies to a --model folder's chat template");
        }
        if (maxSteps != null) {
            if (maxSteps < 1) throw new IllegalArgumentException("--max-steps must be ≥ 1, got " + maxSteps);
            cfg = cfg.withMaxSteps(maxSteps);
        }
        try (SftTrainer trainer = resume != null ? SftTrainer.resume(cfg, System.err::println) : SftTrainer.start(cfg, System.err::println)) {
            long start = trainer.state().step();
            SftTrainer.Summary s;
            try (ProgressBar bar = EpisodeRuns.progressBarFrom("sft", trainer.totalSteps(), start,
                    Duration.ofMillis((long) (trainer.state().elapsedSeconds() * 1000)))) {
                s = trainer.train(new SftTrainer.Listener() {
                    @Override
                    public void onStep(SftTrainer.StepResult r) {
                        bar.stepTo(r.step());
                        bar.setExtraMessage(String.format(" loss %.4f, %.0f tok/s", r.loss(), r.tokensPerSecond()));
                    }

                    @Override
                    public void onEval(long step, double loss) {
                        bar.setExtraMessage(String.format(" eval loss %.4f", loss));
                    }
                });
            }
            report(s).print(json.json);
        }
        return 0;
    }

    private static Report report(SftTrainer.Summary s) {
        Report r = new Report();
        long steps = s.lastStep() - s.firstStep();
        r.line(String.format("sft: %d steps (%d → %d of %d) in %.1f s, %.0f tokens/s", steps, s.firstStep(), s.lastStep(),
                s.totalSteps(), s.trainSeconds(), s.tokensPerSecond()));
        r.line(String.format("  loss %.4f → %.4f (best %.4f)", s.firstLoss(), s.lastLoss(), s.bestLoss()));
        if (!Double.isNaN(s.evalLoss())) r.line(String.format("  eval loss %.4f (best %.4f)", s.evalLoss(), s.bestEvalLoss()));
        r.line("  checkpoints: " + (s.lastCheckpoint() == null ? "none written" : s.lastCheckpoint().getParent() + " (latest "
                + s.lastCheckpoint().getFileName() + ")"));
        r.line("  metrics: " + s.metrics());
        r.put("steps", steps).put("last_step", s.lastStep()).put("total_steps", s.totalSteps())
                .put("first_loss", num(s.firstLoss())).put("final_loss", num(s.lastLoss())).put("best_loss", num(s.bestLoss()))
                .put("eval_loss", num(s.evalLoss())).put("best_eval_loss", num(s.bestEvalLoss()))
                .put("tokens", s.tokens()).put("tokens_per_s", Report.round(s.tokensPerSecond(), 1))
                .put("train_s", Report.round(s.trainSeconds(), 2)).put("run_dir", s.runDir().toString())
                .put("checkpoint", s.lastCheckpoint() == null ? null : s.lastCheckpoint().toString())
                .put("metrics", s.metrics().toString());
        return r;
    }

    private static Double num(double v) {
        return Double.isNaN(v) ? null : Report.round(v, 5);
    }
}
