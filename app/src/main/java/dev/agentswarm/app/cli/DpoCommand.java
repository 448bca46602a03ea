package dev.agentswarm.app.cli;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import dev.agentswarm.app.DpoRun;
import dev.agentswarm.app.RunDirs;
import dev.agentswarm.app.SwarmNode;
import dev.agentswarm.learner.rl.DpoTrainer;
import dev.agentswarm.learner.rl.PreferencePair;
import dev.agentswarm.learner.rl.PreferencePairs;
import dev.agentswarm.policy.embedded.EmbeddedModel;
import dev.agentswarm.policy.model.LoraSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "dpo", mixinStandardHelpOptions = true,
        description = {"DPO of the embedded model on preference pairs from a TRL-format JSONL file (prompt/chosen/rejected, as strings"
                + " or message lists; swarm export --format trl-dpo writes one from a run's rollouts).",
                "Settings: agentswarm.learner.dpo (beta, rpo-alpha, learning-rate, steps, …), agentswarm.policy.embedded. Writes"
                + " metrics.jsonl and model.safetensors to the run folder."})
public final class DpoCommand implements Callable<Integer> {

    @Option(names = "--pairs", required = true, paramLabel = "FILE", description = "TRL preference pairs, one JSON object a line.")
    Path pairs;

    @Mixin
    WeightsOptions weights; // the start is also DPO's reference

    @Option(names = "--steps", description = "Optimizer steps (default: agentswarm.learner.dpo.steps).")
    Integer steps;

    @Option(names = "--config", paramLabel = "FILE", description = "HOCON file overriding the defaults.")
    Path config;

    @Option(names = "--run-dir", paramLabel = "DIR", description = "Where the run's files go (default: runs/dpo-<time>).")
    Path runDir;

    @Mixin
    LoraOptions lora;

    @Mixin
    JsonOption json;

    @Override
    public Integer call() throws Exception {
        if (!Files.isRegularFile(pairs)) throw new IllegalArgumentException("--pairs " + pairs + " does not exist");
        Config cfg = SwarmNode.loadConfig(config);
        cfg = lora.apply(weights.apply(cfg));
        if (steps != null) cfg = cfg.withValue("agentswarm.learner.dpo.steps", ConfigValueFactory.fromAnyRef(steps));
        DpoTrainer.Settings settings = DpoTrainer.Settings.fromConfig(cfg);
        Path dir = runDir != null ? runDir : RunDirs.timestamped("dpo"); // a folder of its own, even for a run started in the same second
        Report r = new Report();
        try (EmbeddedModel model = EmbeddedModel.fromConfig(cfg)) {
            List<PreferencePair> loaded = new PreferencePairs(model.template()).load(pairs);
            DpoRun.Outcome o = DpoRun.train(model, loaded, settings, LoraSettings.fromConfig(cfg).orElse(null), dir);
            r.line(String.format("%d pairs, %d steps: loss %.3f → %.3f, pair accuracy %.2f → %.2f, %.1f s", loaded.size(), o.steps().size(),
                    o.first().loss(), o.last().loss(), o.first().accuracy(), o.last().accuracy(), o.trainSeconds()));
            r.line("written to " + dir + " (metrics.jsonl, " + o.weights().getFileName() + ")");
            r.put("pairs", loaded.size()).put("steps", o.steps().size()).put("first_loss", Report.round(o.first().loss(), 4))
                    .put("last_loss", Report.round(o.last().loss(), 4)).put("last_accuracy", Report.round(o.last().accuracy(), 3))
                    .put("train_s", Report.round(o.trainSeconds(), 2)).put("weights", o.weights().toString()).put("run_dir", dir.toString());
        }
        r.print(json.json);
        return 0;
    }
}
