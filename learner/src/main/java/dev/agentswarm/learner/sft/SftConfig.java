package dev.agentswarm.learner.sft;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigRenderOptions;
import com.typesafe.config.ConfigValueFactory;
import dev.agentswarm.learner.optim.AdamW;
import dev.agentswarm.policy.model.ModelConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/**
 * The {@code agentswarm.sft} block: data, model, optimizer and schedule of a supervised fine-tuning
 * run. Nullable paths ({@code evalData}, {@code tokenizer}, {@code initWeights}) are absent when
 * their key is empty. Every validation error names the full key.
 */
public record SftConfig(Path data, Path evalData, Path tokenizer, ModelConfig model, Path initWeights,
                        int seqLen, int microBatch, int gradAccum, double lr, double minLr, int warmupSteps,
                        int maxSteps, int epochs, double weightDecay, double beta1, double beta2, double eps,
                        double maxGradNorm, int checkpointEvery, int evalEvery, long seed, Path runDir,
                        double maxBadFraction, Config source) {

    public static final String PATH = "agentswarm.sft";

    /** Reads {@code file} over the learner's reference.conf. */
    public static SftConfig load(Path file) {
        if (!Files.isRegularFile(file)) throw new IllegalArgumentException("config file " + file + " does not exist");
        Config parsed;
        try {
            parsed = ConfigFactory.parseFile(file.toFile());
        } catch (ConfigException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        return fromConfig(parsed.withFallback(ConfigFactory.defaultReference()));
    }

    public static SftConfig fromConfig(Config root) {
        Config c;
        try {
            c = root.resolve().getConfig(PATH);
        } catch (ConfigException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        try {
            String data = c.getString("data");
            if (data.isBlank()) throw bad("data", "is required: a JSONL file of conversations");
            ModelConfig model;
            try {
                model = ModelConfig.fromConfig(c.getConfig("model").atPath(ModelConfig.CONFIG_PATH));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(PATH + ".model: " + e.getMessage(), e);
            }
            int seqLen = c.getInt("seq-len");
            if (seqLen < 2) throw bad("seq-len", "must be ≥ 2, got " + seqLen);
            if (seqLen > model.context() && optionalPath(c, "model-dir") == null) {
                throw bad("seq-len", "(" + seqLen + ") exceeds the model's context (" + model.context()
                        + "); lower it or set " + PATH + ".model.context");
            }
            int microBatch = atLeast(c, "micro-batch", 1);
            int gradAccum = atLeast(c, "grad-accum", 1);
            double lr = c.getDouble("lr");
            if (!(lr > 0)) throw bad("lr", "must be > 0, got " + lr);
            double minLr = c.getDouble("min-lr");
            if (!(minLr >= 0 && minLr <= lr)) throw bad("min-lr", "must be in [0, lr=" + lr + "], got " + minLr);
            int warmup = atLeast(c, "warmup-steps", 0);
            int maxSteps = atLeast(c, "max-steps", 0);
            int epochs = atLeast(c, "epochs", 1);
            double beta1 = c.getDouble("beta1"), beta2 = c.getDouble("beta2"), eps = c.getDouble("eps");
            double wd = c.getDouble("weight-decay");
            if (!(beta1 >= 0 && beta1 < 1)) throw bad("beta1", "must be in [0, 1), got " + beta1);
            if (!(beta2 >= 0 && beta2 < 1)) throw bad("beta2", "must be in [0, 1), got " + beta2);
            if (!(eps > 0)) throw bad("eps", "must be > 0, got " + eps);
            if (!(wd >= 0)) throw bad("weight-decay", "must be ≥ 0, got " + wd);
            double clip = c.getDouble("max-grad-norm");
            if (!(clip >= 0)) throw bad("max-grad-norm", "must be ≥ 0 (0 = no clipping), got " + clip);
            double maxBad = c.getDouble("max-bad-fraction");
            if (!(maxBad >= 0 && maxBad <= 1)) throw bad("max-bad-fraction", "must be in [0, 1], got " + maxBad);
            String runDir = c.getString("run-dir");
            Path run = runDir.isBlank()
                    ? Path.of("runs", "sft-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")))
                    : Path.of(runDir);
            return new SftConfig(Path.of(data), optionalPath(c, "eval-data"), optionalPath(c, "tokenizer"), model,
                    optionalPath(c, "init-weights"), seqLen, microBatch, gradAccum, lr, minLr, warmup, maxSteps, epochs,
                    wd, beta1, beta2, eps, clip, atLeast(c, "checkpoint-every", 0), atLeast(c, "eval-every", 0),
                    c.getLong("seed"), run, maxBad, c.withValue("run-dir", ConfigValueFactory.fromAnyRef(run.toString())));
        } catch (ConfigException e) {
            // Typesafe's messages carry the origin (file: line) and the key relative to the block.
            throw new IllegalArgumentException(PATH + ": " + e.getMessage(), e);
        }
    }

    /**
     * A Hugging Face model folder to fine-tune ({@code agentswarm.sft.model-dir}): its weights,
     * tokenizer and chat template replace {@code model}, {@code tokenizer} and fresh weights; null
     * for the project's own models.
     */
    public Path modelDir() {
        return optionalPath(source, "model-dir");
    }

    /** Variables for the model folder's chat template ({@code agentswarm.sft.template-variables}). */
    public java.util.Map<String, Object> templateVariables() {
        return source.hasPath("template-variables") ? source.getConfig("template-variables").root().unwrapped() : java.util.Map.of();
    }

    /** The LoRA block ({@code agentswarm.sft.lora}, as agentswarm.learner.lora); empty for full fine-tuning. */
    public java.util.Optional<dev.agentswarm.policy.model.LoraSettings> lora() {
        if (!source.hasPath("lora")) return java.util.Optional.empty();
        return dev.agentswarm.policy.model.LoraSettings.fromConfig(
                source.getConfig("lora").atPath(dev.agentswarm.policy.model.LoraSettings.PATH));
    }

    /** The same run with another LoRA block (a root config holding it at {@code agentswarm.sft.lora}). */
    public SftConfig withLora(Config root) {
        if (!root.hasPath(PATH + ".lora")) return this;
        return fromConfig(source.withValue("lora", root.getValue(PATH + ".lora")).atPath(PATH));
    }

    public AdamW.Settings adamW() {
        return new AdamW.Settings(beta1, beta2, eps, weightDecay);
    }

    /** Conversations per optimizer step. */
    public int batchSize() {
        return microBatch * gradAccum;
    }

    /** The optimizer steps of the run: max-steps, or epochs passes over {@code examples} conversations. */
    public int totalSteps(int examples) {
        if (maxSteps > 0) return maxSteps;
        return Math.max(1, (int) Math.ceil((double) epochs * examples / batchSize()));
    }

    public SftConfig withMaxSteps(int steps) {
        return fromConfig(source.withValue("max-steps", ConfigValueFactory.fromAnyRef(steps)).atPath(PATH));
    }

    /** The same run on a Hugging Face folder, with extra variables for its chat template. */
    public SftConfig withModelDir(Path dir, java.util.Map<String, Object> variables) {
        Config c = source.withValue("model-dir", ConfigValueFactory.fromAnyRef(dir.toString()));
        for (var e : variables.entrySet()) c = c.withValue("template-variables." + e.getKey(), ConfigValueFactory.fromAnyRef(e.getValue()));
        return fromConfig(c.atPath(PATH));
    }

    /** Checkpoints kept, the newest (0 = all); a run folder saved before the setting existed keeps all. */
    public int keepCheckpoints() {
        int keep = source.hasPath("keep-checkpoints") ? source.getInt("keep-checkpoints") : 0;
        if (keep < 0) throw bad("keep-checkpoints", "must be 0 (all) or more, got " + keep);
        return keep;
    }

    public SftConfig withRunDir(Path dir) {
        return fromConfig(source.withValue("run-dir", ConfigValueFactory.fromAnyRef(dir.toString())).atPath(PATH));
    }

    /** The block as HOCON (JSON syntax) under {@code agentswarm.sft}, which {@link #load} reads back. */
    public String render() {
        return source.atPath(PATH).root().render(ConfigRenderOptions.concise().setFormatted(true).setJson(true));
    }

    private static Path optionalPath(Config c, String key) {
        if (!c.hasPath(key)) return null;
        String v = c.getString(key);
        return v.isBlank() ? null : Path.of(v);
    }

    private static int atLeast(Config c, String key, int min) {
        int v = c.getInt(key);
        if (v < min) throw bad(key, "must be ≥ " + min + ", got " + v);
        return v;
    }

    private static IllegalArgumentException bad(String key, String why) {
        return new IllegalArgumentException(PATH + "." + key + " " + why);
    }
}
