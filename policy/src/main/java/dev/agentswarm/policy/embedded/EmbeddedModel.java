package dev.agentswarm.policy.embedded;

import ai.djl.ndarray.NDManager;
import com.typesafe.config.Config;
import dev.agentswarm.policy.chat.ChatTemplate;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.InferenceThreads;
import dev.agentswarm.policy.model.ModelConfig;
import dev.agentswarm.policy.model.ModelWeights;
import dev.agentswarm.policy.tokenizer.BpeTokenizer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The embedded policy's parts, owned together: tokenizer, chat template, the model and its native
 * memory. Built from {@code agentswarm.policy.embedded}: a preset (with overrides), a tokenizer file
 * (none: the byte-level tokenizer with the chat and tool specials), a weights file (none: fresh
 * weights from {@code seed}, which generate noise until trained). Closing frees the model.
 */
public final class EmbeddedModel implements AutoCloseable {

    public static final String CONFIG_PATH = "agentswarm.policy.embedded";

    private final NDManager manager;
    private final CausalLm model;
    private final BpeTokenizer tokenizer;
    private final ChatTemplate template;
    private final long version;

    private EmbeddedModel(NDManager manager, CausalLm model, BpeTokenizer tokenizer, long version) {
        this.manager = manager;
        this.model = model;
        this.tokenizer = tokenizer;
        this.template = new ChatTemplate(tokenizer);
        this.version = version;
    }

    public static EmbeddedModel fromConfig(Config root) {
        Config c = root.getConfig(CONFIG_PATH);
        ModelConfig shape = ModelConfig.fromConfig(root);
        String tokenizerPath = c.getString("tokenizer");
        String weightsPath = c.getString("weights");
        BpeTokenizer tokenizer;
        try {
            tokenizer = tokenizerPath.isBlank() ? BpeTokenizer.untrained() : BpeTokenizer.load(Path.of(tokenizerPath));
        } catch (IOException e) {
            throw new UncheckedIOException(CONFIG_PATH + ".tokenizer: cannot read " + tokenizerPath + ": " + e.getMessage(), e);
        }
        return create(shape, tokenizer, weightsPath.isBlank() ? null : Path.of(weightsPath), c.getLong("seed"));
    }

    /** @param weights a safetensors file, or null for fresh weights drawn with {@code seed} */
    public static EmbeddedModel create(ModelConfig shape, BpeTokenizer tokenizer, Path weights, long seed) {
        if (tokenizer.vocabSize() > shape.vocab()) {
            throw new IllegalArgumentException("the tokenizer has " + tokenizer.vocabSize() + " ids but the model's"
                    + " vocabulary is " + shape.vocab() + ": raise " + ModelConfig.CONFIG_PATH + ".vocab or use a smaller tokenizer");
        }
        if (weights != null && !Files.isRegularFile(weights)) {
            throw new IllegalArgumentException(CONFIG_PATH + ".weights: no file at " + weights);
        }
        InferenceThreads.noGradHere();
        NDManager manager = NDManager.newBaseManager();
        try {
            CausalLm model = CausalLm.create(shape, manager, seed);
            long version = weights == null ? 0 : ModelWeights.load(model, weights);
            return new EmbeddedModel(manager, model, tokenizer, version);
        } catch (IOException e) {
            manager.close();
            throw new UncheckedIOException("cannot read weights " + weights + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            manager.close();
            throw e;
        }
    }

    /** A generator over this model with its own KV cache; close it before the model. */
    public BatchGenerator newGenerator(GeneratorSettings settings) {
        return new BatchGenerator(model, manager, settings, id -> tokenizer.decodeBytes(new int[] {id}),
                tokenizer.vocabSize(), version);
    }

    /** The native memory the model lives in; generators allocate their caches under it. */
    public NDManager manager() {
        return manager;
    }

    public CausalLm model() {
        return model;
    }

    public BpeTokenizer tokenizer() {
        return tokenizer;
    }

    public ChatTemplate template() {
        return template;
    }

    /** The policy version of the weights loaded at start (0 for fresh weights). */
    public long version() {
        return version;
    }

    public String describe() {
        ModelConfig c = model.config();
        return String.format("embedded %s (%.1fM parameters, d=%d, %d layers, vocab %d, context %d)", c.name(),
                c.parameters() / 1e6, c.dModel(), c.layers(), c.vocab(), c.context());
    }

    @Override
    public void close() {
        manager.close();
    }
}
