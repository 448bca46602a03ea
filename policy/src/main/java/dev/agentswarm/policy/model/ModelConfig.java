package dev.agentswarm.policy.model;

import com.typesafe.config.Config;
import java.util.Locale;
import java.util.Map;

/**
 * The shape of the embedded decoder-only transformer: pre-norm RMSNorm, rotary positions, causal
 * attention, SwiGLU MLP. The presets are the project's own small models (multi-head attention,
 * embeddings tied to the output head, no biases); the other fields describe the Llama-family
 * checkpoints of Hugging Face (see {@link HfModelConfig}): grouped-query attention ({@code kvHeads}
 * key/value heads shared by {@code heads / kvHeads} query heads each), a head size that need not be
 * dModel / heads, Qwen3's RMSNorm of each query and key head before rotary ({@code qkNorm}), Qwen2's
 * biases on the q, k and v projections ({@code qkvBias}), an output head of its own ({@code
 * tiedHead} false) and Llama-3's rotary frequency scaling. {@code context} is the longest sequence
 * the model attends over (prompt plus generation); rotary tables and the KV cache are sized by it.
 */
public record ModelConfig(String name, int dModel, int layers, int heads, int kvHeads, int headSize, int ffn, int vocab,
                          int context, double ropeTheta, RopeScaling ropeScaling, double normEps, boolean qkNorm,
                          boolean qkvBias, boolean tiedHead) {

    /** A preset-style shape: multi-head attention, head size dModel / heads, tied head, no biases, no q/k norm. */
    public ModelConfig(String name, int dModel, int layers, int heads, int ffn, int vocab, int context,
                       double ropeTheta, double normEps) {
        this(name, dModel, layers, heads, heads, evenSplit(dModel, heads), ffn, vocab, context, ropeTheta,
                RopeScaling.NONE, normEps, false, false, true);
    }

    /** Where the embedded model's shape lives in the configuration tree. */
    public static final String CONFIG_PATH = "agentswarm.policy.embedded.model";

    /**
     * The presets. {@code tiny} has 272 ids, not 256: the byte-level tokenizer needs 256 byte ids plus
     * its 16 special tokens. {@code small} is the shape of the plain-PyTorch reference.
     */
    public static final Map<String, ModelConfig> PRESETS = Map.of(
            "tiny", new ModelConfig("tiny", 64, 2, 4, 172, 272, 256, 10_000, 1e-6),
            "small", new ModelConfig("small", 256, 4, 4, 688, 512, 256, 10_000, 1e-6),
            "base", new ModelConfig("base", 512, 8, 8, 1376, 4096, 1024, 10_000, 1e-6));

    public ModelConfig {
        if (name == null || name.isBlank()) name = "custom";
        positive(dModel, "d-model");
        positive(layers, "layers");
        positive(heads, "heads");
        positive(kvHeads, "kv-heads");
        positive(headSize, "head size");
        positive(ffn, "ffn");
        positive(vocab, "vocab");
        positive(context, "context");
        if (heads % kvHeads != 0) {
            throw new IllegalArgumentException("heads (" + heads + ") must be a multiple of kv-heads (" + kvHeads + ")");
        }
        if (headSize % 2 != 0) {
            throw new IllegalArgumentException("the head size " + headSize + " must be even for rotary positions");
        }
        if (ropeScaling == null) ropeScaling = RopeScaling.NONE;
        if (!(ropeTheta > 1)) throw new IllegalArgumentException("rope-theta must be > 1, got " + ropeTheta);
        if (!(normEps > 0)) throw new IllegalArgumentException("norm-eps must be > 0, got " + normEps);
    }

    public static ModelConfig preset(String name) {
        ModelConfig preset = PRESETS.get(name.toLowerCase(Locale.ROOT));
        if (preset == null) {
            throw new IllegalArgumentException("unknown model preset '" + name + "'; known: "
                    + String.join(", ", PRESETS.keySet().stream().sorted().toList()));
        }
        return preset;
    }

    /** Reads {@link #CONFIG_PATH}: a {@code preset} with any field overridden by its own key. */
    public static ModelConfig fromConfig(Config root) {
        Config c = root.getConfig(CONFIG_PATH);
        ModelConfig p = preset(c.getString("preset"));
        // A longer context changes no weight; any other override makes a different model.
        boolean custom = java.util.stream.Stream.of("d-model", "layers", "heads", "ffn", "vocab", "rope-theta", "norm-eps")
                .anyMatch(c::hasPath);
        return new ModelConfig(custom ? p.name + "-custom" : p.name,
                intOr(c, "d-model", p.dModel), intOr(c, "layers", p.layers), intOr(c, "heads", p.heads),
                intOr(c, "ffn", p.ffn), intOr(c, "vocab", p.vocab), intOr(c, "context", p.context),
                c.hasPath("rope-theta") ? c.getDouble("rope-theta") : p.ropeTheta,
                c.hasPath("norm-eps") ? c.getDouble("norm-eps") : p.normEps);
    }

    public ModelConfig withVocab(int newVocab) {
        return new ModelConfig(name, dModel, layers, heads, kvHeads, headSize, ffn, newVocab, context, ropeTheta, ropeScaling,
                normEps, qkNorm, qkvBias, tiedHead);
    }

    public ModelConfig withContext(int newContext) {
        return new ModelConfig(name, dModel, layers, heads, kvHeads, headSize, ffn, vocab, newContext, ropeTheta, ropeScaling,
                normEps, qkNorm, qkvBias, tiedHead);
    }

    /** Query heads per key/value head. */
    public int groupSize() {
        return heads / kvHeads;
    }

    /** Width of the query projection and of the attention's output: heads × head size. */
    public int attentionWidth() {
        return heads * headSize;
    }

    /** Rows of the fused q|k|v projection, in heads: the query heads, then keys', then values'. */
    public int projectionHeads() {
        return heads + 2 * kvHeads;
    }

    public long embeddingParameters() {
        return (long) vocab * dModel;
    }

    /**
     * Per layer: q|k|v and output projections (with Qwen2's biases), three SwiGLU matrices, two norm
     * vectors (and Qwen3's q/k norms); plus the final norm. An untied output head is counted here: it
     * is a matrix every token multiplies.
     */
    public long nonEmbeddingParameters() {
        long projection = (long) projectionHeads() * headSize;
        long perLayer = projection * dModel + (long) attentionWidth() * dModel + 3L * dModel * ffn + 2L * dModel
                + (qkvBias ? projection : 0) + (qkNorm ? 2L * headSize : 0);
        return layers * perLayer + dModel + (tiedHead ? 0 : (long) vocab * dModel);
    }

    public long parameters() {
        return embeddingParameters() + nonEmbeddingParameters();
    }

    /**
     * Training FLOPs per token at sequence length {@code t}, counted as the PyTorch reference counts
     * them: 6 × non-embedding parameters (forward and backward of the matmuls) plus attention,
     * 12 × layers × t × d (QK^T and AV, forward and backward, the causal half counted in full as
     * dense kernels compute it). The tied head is left out, as in the reference.
     */
    public double trainingFlopsPerToken(int t) {
        return 6.0 * nonEmbeddingParameters() + 12.0 * layers * t * attentionWidth();
    }

    private static int evenSplit(int dModel, int heads) {
        if (heads <= 0) throw new IllegalArgumentException("heads must be > 0, got " + heads);
        if (dModel % heads != 0) {
            throw new IllegalArgumentException("d-model (" + dModel + ") must be divisible by heads (" + heads + ")");
        }
        return dModel / heads;
    }

    private static int intOr(Config c, String key, int fallback) {
        return c.hasPath(key) ? c.getInt(key) : fallback;
    }

    private static void positive(int value, String key) {
        if (value <= 0) throw new IllegalArgumentException(key + " must be > 0, got " + value);
    }
}
