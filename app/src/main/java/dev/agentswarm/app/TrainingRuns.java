package dev.agentswarm.app;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.environments.Suite;
import dev.agentswarm.environments.SuiteCatalog;
import dev.agentswarm.learner.Learner;
import dev.agentswarm.learner.TrainingMemory;
import dev.agentswarm.learner.rl.GrpoSettings;
import dev.agentswarm.learner.rl.GrpoTrainer;
import dev.agentswarm.learner.sft.Checkpoints;
import dev.agentswarm.policy.embedded.EmbeddedModel;
import dev.agentswarm.policy.model.LoraAdapter;
import dev.agentswarm.policy.model.LoraSettings;
import dev.agentswarm.policy.openai.OpenAiCompatiblePolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * How a learner opens a training run from its folder alone, on whichever learner node holds the
 * singleton: the run's resolved configuration ({@code train.conf}) and, when there is one, its
 * latest checkpoint (weights, optimizer moments, step, version). The folder must be on storage that
 * every learner node reads at the same path, as a run folder on a cluster's shared file system is.
 */
public final class TrainingRuns {

    /** Prompt tokens assumed beside a completion's budget when estimating a run's memory. */
    static final int PROMPT_ALLOWANCE = 512;

    private TrainingRuns() {}

    /** The learner node's folder of training runs: it opens no run folder outside it. */
    public static final String RUNS_KEY = "agentswarm.node.learner-runs-dir";

    /**
     * Opens {@code runDir}; {@code node} is the learner node's own configuration, under the run's. The
     * folder comes from whichever member sent the batch, and the learner reads its configuration and
     * checkpoint and publishes what it trains to every worker: it must lie inside the node's
     * {@value #RUNS_KEY} ({@link #inside}).
     */
    public static Learner.OpenRun open(Path runDir, Config node) throws Exception {
        if (runDir == null) throw new IllegalArgumentException("a training batch must name its run folder");
        runDir = inside(Path.of(node.getString(RUNS_KEY)), runDir);
        Path saved = runDir.resolve(Training.CONFIG_FILE);
        if (!Files.isRegularFile(saved)) {
            throw new IllegalArgumentException(saved + " is not readable on this learner node; a run folder must be on storage every"
                    + " learner node reads at the same path");
        }
        Config cfg = ConfigFactory.parseFile(saved.toFile()).withFallback(node).resolve();
        Optional<Path> checkpoint = Checkpoints.latest(runDir);
        if (checkpoint.isPresent()) {
            cfg = cfg.withValue("agentswarm.policy.embedded.weights",
                    ConfigValueFactory.fromAnyRef(checkpoint.get().resolve(Checkpoints.MODEL).toString()));
        }
        Config t = cfg.getConfig("agentswarm.train");
        Suite suite = SuiteCatalog.one(cfg, t.getString("suite"), OpenAiCompatiblePolicy::connect);
        EpisodeSpec spec = suite.spec(EpisodeSpec.fromConfig(cfg.getConfig("agentswarm.episode")));
        GrpoSettings grpo = GrpoSettings.fromConfig(cfg, spec.sampling().maxTokens());
        EmbeddedModel model = EmbeddedModel.fromConfig(cfg); // the learner's own copy, the same start as the servers'
        try {
            // A sequence: the completion's budget plus an allowance for the prompt, within the context.
            int tokens = Math.min(model.model().config().context(), spec.sampling().maxTokens() + PROMPT_ALLOWANCE);
            LoraSettings lora = LoraSettings.fromConfig(cfg).orElse(null);
            var shape = model.model().config();
            // With LoRA only the adapter has gradients and moments, and the reference is the base with the adapter off.
            TrainingMemory.estimate(shape, grpo.microBatchRows(), tokens, lora == null && grpo.loss().beta() > 0,
                    lora == null ? shape.parameters() : LoraAdapter.parameterCount(shape, lora))
                    .requireFits((lora == null ? "GRPO full fine-tuning of " : "GRPO LoRA training of ") + shape.name());
            GrpoTrainer trainer = new GrpoTrainer(model.model(), model.manager(), grpo, model.template(), model.version(), lora);
            if (model.modelDir() != null) trainer.exportCheckpointsWith(model::saveHf);
            trainer.keepCheckpoints(t.getInt("keep-checkpoints"));
            if (checkpoint.isPresent()) trainer.restore(checkpoint.get(), GrpoTrainer.Resume.read(checkpoint.get()));
            return new Learner.OpenRun(trainer, new Learner.Checkpointing(runDir, t.getInt("checkpoint-every")), model::close);
        } catch (Exception | Error e) {
            model.close();
            throw e;
        }
    }

    /**
     * {@code runDir} as a real path when it is {@code base} or a folder inside it, links followed on both
     * (so neither {@code ../} nor a link leads out); otherwise an {@link IllegalArgumentException} naming both.
     */
    static Path inside(Path base, Path runDir) {
        Path realBase;
        try {
            realBase = base.toRealPath();
        } catch (IOException e) {
            throw new IllegalArgumentException("run " + runDir + " refused: this learner node's folder of runs " + base.toAbsolutePath()
                    + " (" + RUNS_KEY + ", swarm node --runs-dir) does not exist");
        }
        Path real;
        try {
            real = runDir.toRealPath();
        } catch (IOException e) {
            real = null;
        }
        Path shown = real != null ? real : runDir.toAbsolutePath().normalize();
        if (!shown.startsWith(realBase)) {
            throw new IllegalArgumentException("run " + runDir + " refused: it is not inside this learner node's folder of runs "
                    + realBase + " (" + RUNS_KEY + ", swarm node --runs-dir)");
        }
        if (real == null) {
            throw new IllegalArgumentException(runDir + " is not readable on this learner node; a run folder must be on storage every"
                    + " learner node reads at the same path");
        }
        return real;
    }
}
