package dev.agentswarm.learner.sft;

import ai.djl.ndarray.NDManager;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.json.MetricsLog;
import dev.agentswarm.learner.data.Batcher;
import dev.agentswarm.learner.data.Conversation;
import dev.agentswarm.learner.data.ConversationDataset;
import dev.agentswarm.learner.data.DataCursor;
import dev.agentswarm.learner.data.MicroBatch;
import dev.agentswarm.learner.optim.AdamW;
import dev.agentswarm.learner.optim.LrSchedule;
import dev.agentswarm.learner.TrainingMemory;
import dev.agentswarm.policy.chat.ChatFormat;
import dev.agentswarm.policy.chat.ChatTemplate;
import dev.agentswarm.policy.chat.HfChatFormat;
import dev.agentswarm.policy.hf.HfCheckpoint;
import dev.agentswarm.policy.hf.HfSaver;
import dev.agentswarm.policy.hf.PeftAdapter;
import dev.agentswarm.policy.model.LoraAdapter;
import dev.agentswarm.policy.model.LoraSettings;
import dev.agentswarm.policy.tokenizer.HfTokenizer;
import dev.agentswarm.policy.tokenizer.TextTokenizer;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.ModelWeights;
import dev.agentswarm.policy.tokenizer.BpeTokenizer;
import dev.agentswarm.policy.tokenizer.BpeTrainer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A supervised fine-tuning run: the loss is −mean log p over the assistant tokens of the chat
 * template's rendering. The run folder holds {@code sft.conf} (the resolved configuration),
 * {@code tokenizer.json} when the run trained its own, {@code metrics.jsonl} and {@code checkpoints/}.
 *
 * <p>{@link #resume} continues from the latest checkpoint with the same step count, optimizer
 * moments and remaining data order, so a run cut in two ends with the weights of an uncut one.
 */
public final class SftTrainer implements AutoCloseable {

    public static final String CONFIG_FILE = "sft.conf";
    public static final String TOKENIZER_FILE = "tokenizer.json";
    public static final String METRICS_FILE = "metrics.jsonl";

    /** One optimizer step as reported: {@code tokens} counts padded positions computed, {@code trainedTokens} the loss's. */
    public record StepResult(long step, long totalSteps, double loss, double lr, double gradNorm, int tokens,
                             int trainedTokens, double seconds, double elapsedSeconds) {
        public double tokensPerSecond() {
            return tokens / seconds;
        }
    }

    /** What a call to {@link #train} did; losses are NaN when it took no step or there is no eval data. */
    public record Summary(long firstStep, long lastStep, long totalSteps, double firstLoss, double lastLoss,
                          double bestLoss, double evalLoss, double bestEvalLoss, long tokens, double trainSeconds,
                          Path runDir, Path lastCheckpoint, Path metrics) {
        public double tokensPerSecond() {
            return trainSeconds > 0 ? tokens / trainSeconds : 0;
        }
    }

    /** Progress callbacks, all on the training thread. */
    public interface Listener {
        default void onStep(StepResult result) {}

        default void onEval(long step, double loss) {}

        default void onCheckpoint(long step, Path dir) {}
    }

    private final SftConfig config;
    private final JsonNode configJson;
    private final TextTokenizer tokenizer;
    /** The Hugging Face folder fine-tuned, or null for the project's own model. */
    private final HfCheckpoint.Loaded hf;
    private final ConversationDataset train;
    private final ConversationDataset eval;
    private final NDManager root;
    private final CausalLm model;
    private final AdamW optimizer;
    private final SftStep stepper;
    private final Batcher batcher;
    private final List<MicroBatch> evalBatches;
    private final LrSchedule schedule;
    private final int totalSteps;
    private final MetricsLog metrics;
    private TrainerState state;

    private SftTrainer(SftConfig config, Consumer<String> log, boolean resume) throws IOException {
        this.config = config;
        this.configJson = Json.parse(config.render());
        Path runDir = config.runDir();
        java.util.Optional<Path> latest = Checkpoints.latest(runDir);
        if (resume && latest.isEmpty()) {
            throw new IllegalArgumentException("run folder " + runDir + " has no checkpoint to resume from");
        }
        if (!resume && latest.isPresent()) {
            throw new IllegalArgumentException("run folder " + runDir + " already holds checkpoints; resume it with"
                    + " --resume " + runDir + " or choose another agentswarm.sft.run-dir");
        }
        Files.createDirectories(runDir);
        ConversationDataset.ParsedFile parsed = ConversationDataset.read(config.data(), config.maxBadFraction());
        Path modelDir = config.modelDir();
        ChatFormat template;
        if (modelDir != null) {
            HfChatFormat format = HfChatFormat.load(modelDir, config.templateVariables());
            this.tokenizer = format.tokenizer();
            template = format;
        } else {
            BpeTokenizer own = tokenizer(config, parsed, log);
            if (own.vocabSize() > config.model().vocab()) {
                throw new IllegalArgumentException(SftConfig.PATH + ".model.vocab (" + config.model().vocab()
                        + ") is smaller than the tokenizer's " + own.vocabSize() + " ids; set it to at least that");
            }
            this.tokenizer = own;
            template = new ChatTemplate(own);
        }
        this.train = ConversationDataset.render(parsed, template, config.seqLen());
        report(log, "training data", config.data(), train);
        if (config.evalData() != null) {
            this.eval = ConversationDataset.load(config.evalData(), template, config.seqLen(), config.maxBadFraction());
            report(log, "eval data", config.evalData(), eval);
            this.evalBatches = Batcher.inOrder(eval.examples(), config.microBatch(), tokenizer.padId());
        } else {
            this.eval = null;
            this.evalBatches = List.of();
        }
        this.totalSteps = config.totalSteps(train.examples().size());
        this.schedule = new LrSchedule(config.lr(), config.minLr(), config.warmupSteps(), totalSteps);
        this.batcher = new Batcher(train.examples(), config.microBatch(), config.seed(), tokenizer.padId());

        this.root = NDManager.newBaseManager();
        try {
            if (modelDir != null) {
                this.hf = HfCheckpoint.load(modelDir, root, config.seqLen());
                this.model = hf.model();
                log.accept("fine-tuning " + modelDir + " (" + hf.config().architecture() + ", "
                        + String.format("%.2fB parameters", model.config().parameters() / 1e9) + ")");
            } else {
                this.hf = null;
                this.model = CausalLm.create(config.model(), root, config.seed());
            }
            LoraSettings lora = config.lora().orElse(null);
            TrainingMemory.estimate(model.config(), config.microBatch(), config.seqLen(), false,
                    lora == null ? model.config().parameters() : LoraAdapter.parameterCount(model.config(), lora))
                    .requireFits((lora == null ? "SFT full fine-tuning of " : "SFT LoRA training of ") + model.config().name());
            // The base weights first (a checkpoint's are the base, unmerged), then any adapter over them.
            Path ckpt = latest.orElse(null);
            if (ckpt != null) {
                ModelWeights.load(model, ckpt.resolve(Checkpoints.MODEL));
            } else if (config.initWeights() != null) {
                long v = ModelWeights.load(model, config.initWeights());
                log.accept("initial weights " + config.initWeights() + " (version " + v + ")");
            }
            if (lora != null) {
                LoraAdapter adapter = LoraAdapter.attach(model, lora, root, config.seed());
                if (ckpt != null) PeftAdapter.loadInto(adapter, ckpt.resolve(Checkpoints.ADAPTER));
                log.accept(String.format("LoRA r=%d alpha=%.0f on %s: %,d trained parameters", lora.rank(), lora.alpha(),
                        lora.targets(), LoraAdapter.parameterCount(model.config(), lora)));
            }
            this.optimizer = new AdamW(model.trainableParameters(), config.adamW(), root);
            this.stepper = new SftStep(model, optimizer, root);
            if (ckpt != null) {
                optimizer.load(ckpt.resolve(Checkpoints.OPTIMIZER));
                this.state = Checkpoints.readState(ckpt);
                if (state.seed() != config.seed()) {
                    throw new IllegalArgumentException(SftConfig.PATH + ".seed (" + config.seed() + ") differs from the run's "
                            + state.seed() + "; the data order would change");
                }
                log.accept("resumed from " + ckpt + " at step " + state.step());
            } else {
                this.state = TrainerState.start(config.seed());
                Files.writeString(runDir.resolve(CONFIG_FILE), config.render() + "\n", StandardCharsets.UTF_8);
            }
            this.metrics = MetricsLog.open(runDir.resolve(METRICS_FILE), state.step());
        } catch (IOException | RuntimeException e) {
            root.close();
            throw e;
        }
        log.accept(String.format("model %s: %,d parameters; %d steps of %d × %d conversations (seq-len %d)",
                config.model().name(), config.model().parameters(), totalSteps, config.microBatch(), config.gradAccum(),
                config.seqLen()));
    }

    /** A new run in {@code config.runDir()}, which must not hold checkpoints yet. */
    public static SftTrainer start(SftConfig config, Consumer<String> log) throws IOException {
        return new SftTrainer(config, log, false);
    }

    /** Continues the run in {@code config.runDir()} from its latest checkpoint. */
    public static SftTrainer resume(SftConfig config, Consumer<String> log) throws IOException {
        return new SftTrainer(config, log, true);
    }

    /** Reads the configuration a run folder was started with. */
    public static SftConfig configOf(Path runDir) {
        Path file = runDir.resolve(CONFIG_FILE);
        if (!Files.isRegularFile(file)) throw new IllegalArgumentException(runDir + " is not an sft run folder (no " + CONFIG_FILE + ")");
        return SftConfig.load(file).withRunDir(runDir);
    }

    /** Trains to the end of the schedule. */
    public Summary train(Listener listener) throws IOException {
        return train(totalSteps, listener);
    }

    /**
     * Trains until step {@code untilStep} (at most the schedule's end), evaluating and checkpointing
     * every configured number of steps and once more at the end.
     */
    public Summary train(long untilStep, Listener listener) throws IOException {
        long last = Math.min(untilStep, totalSteps);
        long firstStep = state.step();
        long sessionStart = System.nanoTime();
        double elapsedBefore = state.elapsedSeconds();
        double firstLoss = Double.NaN, lastLoss = Double.NaN, evalLoss = Double.NaN;
        long tokens = 0, lastEval = -1, lastCheckpointStep = -1;
        double trainSeconds = 0;
        Path lastCheckpoint = null;
        while (state.step() < last) {
            long t0 = System.nanoTime();
            List<MicroBatch> batches = new ArrayList<>(config.gradAccum());
            DataCursor cursor = state.cursor();
            for (int i = 0; i < config.gradAccum(); i++) {
                Batcher.Next next = batcher.next(cursor);
                batches.add(next.batch());
                cursor = next.cursor();
            }
            double lr = schedule.at(state.step());
            SftStep.Outcome outcome = stepper.run(batches, lr, config.maxGradNorm());
            double seconds = (System.nanoTime() - t0) / 1e9;
            int stepTokens = 0, trained = 0;
            for (MicroBatch b : batches) {
                stepTokens += b.tokens();
                trained += b.trainedTokens();
            }
            long step = state.step() + 1;
            double elapsed = elapsedBefore + (System.nanoTime() - sessionStart) / 1e9;
            double best = Double.isNaN(state.bestLoss()) ? outcome.loss() : Math.min(state.bestLoss(), outcome.loss());
            state = new TrainerState(step, cursor, state.seed(), best, state.bestEvalLoss(), state.tokensSeen() + stepTokens, elapsed);
            if (Double.isNaN(firstLoss)) firstLoss = outcome.loss();
            lastLoss = outcome.loss();
            tokens += stepTokens;
            trainSeconds += seconds;
            StepResult result = new StepResult(step, totalSteps, outcome.loss(), lr, outcome.gradNorm(), stepTokens, trained,
                    seconds, elapsed);
            metrics.append(stepLine(result));
            listener.onStep(result);
            if (eval != null && config.evalEvery() > 0 && step % config.evalEvery() == 0) {
                evalLoss = evaluate(listener);
                lastEval = step;
            }
            if (config.checkpointEvery() > 0 && step % config.checkpointEvery() == 0) {
                lastCheckpoint = checkpoint(listener);
                lastCheckpointStep = step;
            }
        }
        if (eval != null && lastEval != state.step()) evalLoss = evaluate(listener);
        if (lastCheckpointStep != state.step() && state.step() > firstStep) lastCheckpoint = checkpoint(listener);
        return new Summary(firstStep, state.step(), totalSteps, firstLoss, lastLoss, state.bestLoss(), evalLoss,
                state.bestEvalLoss(), tokens, trainSeconds, config.runDir(), lastCheckpoint, metrics.file());
    }

    /** Mean loss on the eval data (NaN without eval data); logged to metrics.jsonl. */
    public double evaluate(Listener listener) {
        if (eval == null) return Double.NaN;
        double loss = stepper.evaluate(evalBatches);
        double best = Double.isNaN(state.bestEvalLoss()) ? loss : Math.min(loss, state.bestEvalLoss());
        state = new TrainerState(state.step(), state.cursor(), state.seed(), state.bestLoss(), best, state.tokensSeen(),
                state.elapsedSeconds());
        ObjectNode line = Json.object();
        line.put("step", state.step());
        line.put("eval_loss", loss);
        line.put("eval_tokens", eval.stats().trainedTokens());
        metrics.append(line);
        listener.onEval(state.step(), loss);
        return loss;
    }

    public Path checkpoint(Listener listener) throws IOException {
        // A Hugging Face model's checkpoints carry its own layout too (hf/), in its published dtype.
        Checkpoints.ModelExport export = hf == null ? null : (m, folder) -> HfSaver.save(m, hf.config(), config.modelDir(), folder,
                hf.config().savedDtype(), HfSaver.DEFAULT_SHARD_BYTES);
        Path dir = Checkpoints.save(config.runDir(), model, optimizer, state, configJson, export, config.keepCheckpoints());
        listener.onCheckpoint(state.step(), dir);
        return dir;
    }

    public TrainerState state() {
        return state;
    }

    public int totalSteps() {
        return totalSteps;
    }

    public CausalLm model() {
        return model;
    }

    public TextTokenizer tokenizer() {
        return tokenizer;
    }

    public ConversationDataset trainData() {
        return train;
    }

    public SftConfig config() {
        return config;
    }

    @Override
    public void close() throws IOException {
        try {
            metrics.close();
        } finally {
            optimizer.close();
            root.close();
            if (tokenizer instanceof HfTokenizer t) t.close();
        }
    }

    private static ObjectNode stepLine(StepResult r) {
        ObjectNode line = Json.object();
        line.put("step", r.step());
        line.put("loss", r.loss());
        line.put("lr", r.lr());
        line.put("grad_norm", r.gradNorm());
        line.put("tokens", r.tokens());
        line.put("trained_tokens", r.trainedTokens());
        line.put("tokens_per_s", r.tokensPerSecond());
        line.put("step_s", r.seconds());
        line.put("elapsed", r.elapsedSeconds());
        return line;
    }

    /**
     * The configured tokenizer, the one this run trained earlier (resume), or a new one trained on
     * the exact text the template renders (so merges span the template's own strings too).
     */
    private static BpeTokenizer tokenizer(SftConfig config, ConversationDataset.ParsedFile parsed, Consumer<String> log)
            throws IOException {
        if (config.tokenizer() != null) {
            if (!Files.isRegularFile(config.tokenizer())) {
                throw new IllegalArgumentException(SftConfig.PATH + ".tokenizer: " + config.tokenizer() + " does not exist");
            }
            return BpeTokenizer.load(config.tokenizer());
        }
        Path saved = config.runDir().resolve(TOKENIZER_FILE);
        if (Files.isRegularFile(saved)) return BpeTokenizer.load(saved);
        ChatTemplate bytes = new ChatTemplate(BpeTokenizer.untrained());
        List<String> texts = new ArrayList<>(parsed.conversations().size());
        for (Conversation c : parsed.conversations()) {
            texts.add(bytes.tokenizer().decode(bytes.conversation(c.messages(), c.tools()).ids()));
        }
        long t0 = System.nanoTime();
        BpeTokenizer trained;
        try {
            trained = new BpeTrainer().train(texts, config.model().vocab());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(SftConfig.PATH + ".model.vocab: " + e.getMessage(), e);
        }
        trained.save(saved);
        log.accept(String.format("trained a %d-id BPE tokenizer on %d conversations in %.1f s → %s", trained.vocabSize(),
                texts.size(), (System.nanoTime() - t0) / 1e9, saved));
        return trained;
    }

    private static void report(Consumer<String> log, String what, Path file, ConversationDataset d) {
        ConversationDataset.Stats s = d.stats();
        log.accept(String.format("%s %s: %d conversations, %,d tokens (%,d trained); %d malformed lines skipped,"
                        + " %d cut to seq-len, %d without trained tokens dropped", what, file, s.accepted(), s.tokens(),
                s.trainedTokens(), s.malformed(), s.truncated(), s.withoutTrainedTokens()));
        for (int i = 0; i < Math.min(5, d.problems().size()); i++) log.accept("  skipped " + d.problems().get(i));
        if (d.problems().size() > 5) log.accept("  … and " + (d.problems().size() - 5) + " more");
    }
}
