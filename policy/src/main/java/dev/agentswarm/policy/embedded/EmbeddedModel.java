package dev.agentswarm.policy.embedded;

import ai.djl.ndarray.NDManager;
import com.typesafe.config.Config;
import dev.agentswarm.policy.chat.ChatFormat;
import dev.agentswarm.policy.chat.ChatTemplate;
import dev.agentswarm.policy.chat.HfChatFormat;
import dev.agentswarm.policy.hf.HfCheckpoint;
import dev.agentswarm.policy.hf.HfModelConfig;
import dev.agentswarm.policy.hf.HfSaver;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.InferenceThreads;
import dev.agentswarm.policy.model.ModelConfig;
import dev.agentswarm.policy.model.ModelWeights;
import dev.agentswarm.policy.tokenizer.BpeTokenizer;
import dev.agentswarm.policy.tokenizer.HfTokenizer;
import dev.agentswarm.policy.tokenizer.TextTokenizer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The embedded policy's parts, owned together: tokenizer, chat format, the model and its native
 * memory. Built from {@code agentswarm.policy.embedded}, one of two ways:
 *
 * <ul>
 *   <li>{@code model-dir}: a Hugging Face folder (Qwen3, Qwen2.5, Llama-3): its config, weights,
 *       tokenizer and chat template, as the model was published;
 *   <li>otherwise the project's own model: a preset (with overrides), a tokenizer file (none: the
 *       byte-level tokenizer with the chat and tool specials), fresh weights from {@code seed}.
 * </ul>
 *
 * A {@code weights} file (a checkpoint of the learner's, in the engine's own names) replaces the
 * weights either way. Closing frees the model.
 */
public final class EmbeddedModel implements AutoCloseable {

    public static final String CONFIG_PATH = "agentswarm.policy.embedded";

    private final NDManager manager;
    private final CausalLm model;
    private final ChatFormat template;
    private final long version;
    /** The Hugging Face folder the model came from; null for the project's own models. */
    private final Path modelDir;
    private final HfModelConfig hfConfig;
    private final AutoCloseable tokenizerResources;

    private EmbeddedModel(NDManager manager, CausalLm model, ChatFormat template, long version, Path modelDir,
                          HfModelConfig hfConfig, AutoCloseable tokenizerResources) {
        this.manager = manager;
        this.model = model;
        this.template = template;
        this.version = version;
        this.modelDir = modelDir;
        this.hfConfig = hfConfig;
        this.tokenizerResources = tokenizerResources;
    }

    public static EmbeddedModel fromConfig(Config root) {
        Config c = root.getConfig(CONFIG_PATH);
        String weightsPath = c.getString("weights");
        Path weights = weightsPath.isBlank() ? null : Path.of(weightsPath);
        String modelDir = c.getString("model-dir");
        if (!modelDir.isBlank()) {
            Map<String, Object> variables = new LinkedHashMap<>(c.getConfig("template-variables").root().unwrapped());
            return fromModelDir(Path.of(modelDir), c.getInt("model-context"), variables, weights);
        }
        ModelConfig shape = ModelConfig.fromConfig(root);
        String tokenizerPath = c.getString("tokenizer");
        BpeTokenizer tokenizer;
        try {
            tokenizer = tokenizerPath.isBlank() ? BpeTokenizer.untrained() : BpeTokenizer.load(Path.of(tokenizerPath));
        } catch (IOException e) {
            throw new UncheckedIOException(CONFIG_PATH + ".tokenizer: cannot read " + tokenizerPath + ": " + e.getMessage(), e);
        }
        return create(shape, tokenizer, weights, c.getLong("seed"));
    }

    /** @param weights a safetensors file, or null for fresh weights drawn with {@code seed} */
    public static EmbeddedModel create(ModelConfig shape, BpeTokenizer tokenizer, Path weights, long seed) {
        return InferenceThreads.onOwnThread("model-loader", () -> createHere(shape, tokenizer, weights, seed));
    }

    private static EmbeddedModel createHere(ModelConfig shape, BpeTokenizer tokenizer, Path weights, long seed) {
        if (tokenizer.vocabSize() > shape.vocab()) {
            throw new IllegalArgumentException("the tokenizer has " + tokenizer.vocabSize() + " ids but the model's"
                    + " vocabulary is " + shape.vocab() + ": raise " + ModelConfig.CONFIG_PATH + ".vocab or use a smaller tokenizer");
        }
        checkWeightsFile(weights);
        InferenceThreads.noGradHere();
        NDManager manager = NDManager.newBaseManager();
        try {
            CausalLm model = CausalLm.create(shape, manager, seed);
            long version = weights == null ? 0 : ModelWeights.load(model, weights);
            return new EmbeddedModel(manager, model, new ChatTemplate(tokenizer), version, null, null, null);
        } catch (IOException e) {
            manager.close();
            throw new UncheckedIOException("cannot read weights " + weights + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            manager.close();
            throw e;
        }
    }

    /**
     * A Hugging Face model folder: config.json, safetensors weights, tokenizer.json and the chat
     * template of tokenizer_config.json (or chat_template.jinja).
     *
     * @param context the longest sequence served (0: min(max_position_embeddings, 8192))
     * @param variables template variables every rendering gets (enable_thinking, date_string…)
     * @param weights the learner's checkpoint to load over the folder's weights, or null
     */
    public static EmbeddedModel fromModelDir(Path dir, int context, Map<String, Object> variables, Path weights) {
        return InferenceThreads.onOwnThread("model-loader", () -> fromModelDirHere(dir, context, variables, weights));
    }

    private static EmbeddedModel fromModelDirHere(Path dir, int context, Map<String, Object> variables, Path weights) {
        if (!Files.isDirectory(dir)) throw new IllegalArgumentException(CONFIG_PATH + ".model-dir: no folder at " + dir);
        checkWeightsFile(weights);
        InferenceThreads.noGradHere();
        HfTokenizer tokenizer = null;
        NDManager manager = NDManager.newBaseManager();
        try {
            HfModelConfig config = HfModelConfig.read(dir, 0);
            int served = context > 0 ? context : Math.min(config.maxPositions(), DEFAULT_CONTEXT);
            HfChatFormat format = HfChatFormat.load(dir, variables);
            tokenizer = format.tokenizer();
            if (tokenizer.vocabSize() > config.model().vocab()) {
                throw new IllegalArgumentException(dir + ": the tokenizer has " + tokenizer.vocabSize()
                        + " ids, more than the model's vocab_size " + config.model().vocab());
            }
            CausalLm model = HfCheckpoint.load(dir, manager, served).model();
            long version = weights == null ? 0 : ModelWeights.load(model, weights);
            return new EmbeddedModel(manager, model, format, version, dir, config.withContext(served), tokenizer);
        } catch (IOException e) {
            close(tokenizer, manager);
            throw new UncheckedIOException(dir + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            close(tokenizer, manager);
            throw e;
        }
    }

    /** Served context of a Hugging Face model when none is configured: rotary tables and caches are sized by it. */
    public static final int DEFAULT_CONTEXT = 8192;

    private static void close(HfTokenizer tokenizer, NDManager manager) {
        if (tokenizer != null) tokenizer.close();
        manager.close();
    }

    private static void checkWeightsFile(Path weights) {
        if (weights != null && !Files.isRegularFile(weights)) {
            throw new IllegalArgumentException(CONFIG_PATH + ".weights: no file at " + weights);
        }
    }

    /** A generator over this model with its own KV cache; close it before the model. */
    public BatchGenerator newGenerator(GeneratorSettings settings) {
        TextTokenizer tokenizer = template.tokenizer();
        return new BatchGenerator(model, manager, settings, tokenizer::tokenBytes,
                Math.min(tokenizer.vocabSize(), model.config().vocab()), version);
    }

    /** The native memory the model lives in; generators allocate their caches under it. */
    public NDManager manager() {
        return manager;
    }

    public CausalLm model() {
        return model;
    }

    public TextTokenizer tokenizer() {
        return template.tokenizer();
    }

    public ChatFormat template() {
        return template;
    }

    /** The Hugging Face folder this model was loaded from, or null for the project's own models. */
    public Path modelDir() {
        return modelDir;
    }

    /** Its config.json (context as served), or null for the project's own models. */
    public HfModelConfig hfConfig() {
        return hfConfig;
    }

    /**
     * Writes {@code weights} (this model's shape, e.g. the learner's trained copy) in the Hugging Face
     * layout of the folder this model came from: its config, safetensors in its published dtype, its
     * tokenizer and template files. Only for models loaded from a folder.
     */
    public void saveHf(CausalLm weights, Path folder) throws IOException {
        if (modelDir == null) throw new IllegalStateException("not a Hugging Face model: nothing to save its layout from");
        HfSaver.save(weights, hfConfig, modelDir, folder, hfConfig.savedDtype(), HfSaver.DEFAULT_SHARD_BYTES);
    }

    /** The policy version of the weights loaded at start (0 for fresh weights). */
    public long version() {
        return version;
    }

    public String describe() {
        ModelConfig c = model.config();
        if (modelDir != null) {
            return String.format("%s (%s, %.2fB parameters, %d layers, %d/%d heads, context %d)", c.name(),
                    hfConfig.architecture(), c.parameters() / 1e9, c.layers(), c.heads(), c.kvHeads(), c.context());
        }
        return String.format("embedded %s (%.1fM parameters, d=%d, %d layers, vocab %d, context %d)", c.name(),
                c.parameters() / 1e6, c.dModel(), c.layers(), c.vocab(), c.context());
    }

    @Override
    public void close() {
        if (tokenizerResources != null) {
            try {
                tokenizerResources.close();
            } catch (Exception e) {
                // native tokenizer memory: nothing more to do than to free the model's below
            }
        }
        manager.close();
    }
}
