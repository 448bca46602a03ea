package dev.agentswarm.policy.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.ndarray.types.SparseFormat;
import ai.djl.nn.AbstractBlock;
import ai.djl.nn.Parameter;
import ai.djl.nn.core.Linear;
import ai.djl.training.ParameterStore;
import ai.djl.util.PairList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The embedded decoder-only language model: token embedding, {@code layers} pre-norm decoder layers
 * with rotary causal attention and SwiGLU, a final RMSNorm, and the output head (the embedding matrix
 * reused, or a matrix of its own when the config says the head is untied). Three ways through it:
 *
 * <ul>
 *   <li>{@link #logits} / {@link #tokenLogProbs}: a full causal pass over a right-padded batch
 *       (training and scoring; padding after a sequence never changes its log-probs);
 *   <li>{@link #prefill}: new sequences into KV-cache slots, returning each one's next-token logits;
 *   <li>{@link #decode}: one token for each running slot, each at its own position.
 * </ul>
 *
 * Parameter names ({@link #namedParameters}) follow the PyTorch reference's state dict, so weights
 * move between the two as safetensors.
 */
public final class CausalLm extends AbstractBlock {

    private static final byte VERSION = 2;
    private static final float MASKED = -1e9f;

    private final ModelConfig config;
    private final RotaryTable rotary;
    private final Parameter embedding;
    /** The output head when it is not the embedding; null when tied. */
    private final Parameter head;
    private final List<DecoderLayer> layers = new ArrayList<>();
    private final RmsNorm norm;
    private Map<String, Parameter> named;
    /** The attached LoRA adapter, or null. */
    private LoraAdapter adapter;

    private CausalLm(ModelConfig config, NDManager manager) {
        super(VERSION);
        this.config = config;
        this.rotary = new RotaryTable(manager, config);
        this.embedding = addParameter(Parameter.builder()
                .setName("embedding")
                .setType(Parameter.Type.WEIGHT)
                .optShape(new Shape(config.vocab(), config.dModel()))
                .build());
        head = config.tiedHead() ? null : addParameter(Parameter.builder()
                .setName("head")
                .setType(Parameter.Type.WEIGHT)
                .optShape(new Shape(config.vocab(), config.dModel()))
                .build());
        for (int i = 0; i < config.layers(); i++) {
            layers.add(addChildBlock("block" + i, new DecoderLayer(config, rotary, i)));
        }
        norm = addChildBlock("norm", new RmsNorm(config.dModel(), config.normEps()));
    }

    /**
     * A model with fresh weights: matrices drawn from N(0, 0.02²) with {@code seed} (in Java, so the
     * same seed gives the same weights whatever the engine's random state), norm gains 1, biases 0.
     */
    public static CausalLm create(ModelConfig config, NDManager manager, long seed) {
        CausalLm model = allocate(config, manager);
        SplittableRandom rng = new SplittableRandom(seed);
        for (Parameter p : model.namedParameters().values()) {
            if (p.getType() != Parameter.Type.WEIGHT) continue;
            NDArray array = p.getArray();
            float[] values = new float[Math.toIntExact(array.getShape().size())];
            for (int i = 0; i < values.length; i++) values[i] = (float) (0.02 * rng.nextGaussian());
            array.set(values);
        }
        return model;
    }

    /**
     * A model whose matrices and biases are zeros and norm gains ones, for weights that are loaded
     * next: drawing random values for a model of a billion parameters would cost seconds for nothing.
     */
    public static CausalLm allocate(ModelConfig config, NDManager manager) {
        CausalLm model = new CausalLm(config, manager);
        model.setInitializer((m, shape, type) -> m.zeros(shape, type), Parameter.Type.WEIGHT);
        model.setInitializer((m, shape, type) -> m.zeros(shape, type), Parameter.Type.BIAS);
        model.initialize(manager, DataType.FLOAT32, new Shape(1, 1));
        return model;
    }

    public ModelConfig config() {
        return config;
    }

    RotaryTable rotary() {
        return rotary;
    }

    NDArray embeddingArray() {
        return embedding.getArray();
    }

    /** The output head's (vocab, dModel) matrix: the embedding when tied. */
    NDArray headArray() {
        return (head == null ? embedding : head).getArray();
    }

    DecoderLayer layer(int index) {
        return layers.get(index);
    }

    RmsNorm finalNorm() {
        return norm;
    }

    /** Every parameter under the PyTorch reference's name, in a stable order. */
    public Map<String, Parameter> namedParameters() {
        if (named == null) {
            Map<String, Parameter> map = new LinkedHashMap<>();
            map.put("embed.weight", embedding);
            for (int i = 0; i < layers.size(); i++) {
                DecoderLayer l = layers.get(i);
                String p = "blocks." + i + ".";
                map.put(p + "norm1.weight", l.norm1.weight);
                map.put(p + "attn.qkv.weight", weightOf(l.attention.qkv));
                if (config.qkvBias()) map.put(p + "attn.qkv.bias", l.attention.qkv.getParameters().get("bias"));
                if (config.qkNorm()) {
                    map.put(p + "attn.q_norm.weight", l.attention.qNorm.weight);
                    map.put(p + "attn.k_norm.weight", l.attention.kNorm.weight);
                }
                map.put(p + "attn.out.weight", weightOf(l.attention.out));
                map.put(p + "norm2.weight", l.norm2.weight);
                map.put(p + "mlp.gate.weight", weightOf(l.mlp.gate));
                map.put(p + "mlp.up.weight", weightOf(l.mlp.up));
                map.put(p + "mlp.down.weight", weightOf(l.mlp.down));
            }
            map.put("norm.weight", norm.weight);
            if (head != null) map.put("head.weight", head);
            named = Collections.unmodifiableMap(map);
        }
        return named;
    }

    /** The attached LoRA adapter, or null when the model is trained (or served) whole. */
    public LoraAdapter adapter() {
        return adapter;
    }

    void setAdapter(LoraAdapter adapter) {
        this.adapter = adapter;
    }

    /** Whether an attached adapter is switched on, so the base weights alone do not give the outputs. */
    public boolean adapterActive() {
        return adapter != null && adapter.enabled();
    }

    /**
     * What an optimizer trains: the adapter's A and B when one is attached (the base is frozen),
     * otherwise every parameter.
     */
    public Map<String, Parameter> trainableParameters() {
        return adapter != null ? adapter.namedParameters() : namedParameters();
    }

    /** Logits (B, T, V) of a causal pass over token ids (B, T). */
    public NDArray logits(ParameterStore ps, NDArray ids, boolean training) {
        return head(ps, hidden(ps, ids, training), training);
    }

    /**
     * Logits (B, V) after the last position of ids (B, T), applying the head there only: what
     * generation without a KV cache computes at every step.
     */
    public NDArray lastLogits(ParameterStore ps, NDArray ids) {
        long b = ids.getShape().get(0);
        long t = ids.getShape().get(1);
        NDArray last = hidden(ps, ids, false).get(new NDIndex(":, {}, :", t - 1)).reshape(b, config.dModel());
        return head(ps, last, false);
    }

    /**
     * log p(ids[:, t+1] | ids[:, ≤t]) as (B, T-1): the learner's and the scorer's quantity. With right
     * padding, the values at real positions do not depend on the padding.
     */
    public NDArray tokenLogProbs(ParameterStore ps, NDArray ids, boolean training) {
        return nextTokenLogProbs(ps, ids, training, false)[0];
    }

    /**
     * {@link #tokenLogProbs} and, at the same positions, the entropy of the next-token distribution
     * (B, T-1): what RL trainers watch for collapse. The entropy carries no graph.
     */
    public NDArray[] tokenLogProbsAndEntropy(ParameterStore ps, NDArray ids, boolean training) {
        return nextTokenLogProbs(ps, ids, training, true);
    }

    /*
     * The (B, T, V) arrays are closed as soon as they are used: DJL frees an array only when its handle
     * or its manager closes, so left to the step's manager each would hold B·T·V floats (2.5 GB for
     * B = 16, T = 256 and Qwen3's 151,936 ids) until the step ends. Autograd keeps what the backward
     * needs (log_softmax's output) through references of its own.
     */
    private NDArray[] nextTokenLogProbs(ParameterStore ps, NDArray ids, boolean training, boolean entropy) {
        long t = ids.getShape().get(1);
        // The last position predicts nothing here: cut it from the (B, T, E) hidden states, not from the
        // (B, T, V) logits, whose slice would cost a vocabulary-wide zero-filled gradient in the backward.
        NDArray hidden = hidden(ps, ids, training).get(new NDIndex(":, :{}, :", t - 1));
        try (NDArray logits = head(ps, hidden, training);
             NDArray logp = logits.logSoftmax(2)) {
            NDArray next = ids.get(new NDIndex(":, 1:")).expandDims(2);
            NDArray taken = logp.gather(next, 2).squeeze(2);
            if (!entropy) return new NDArray[] {taken};
            try (NDArray detached = logp.stopGradient(); NDArray plogp = detached.exp().muli(detached)) {
                return new NDArray[] {taken, plogp.sum(new int[] {2}).neg()}; // one (B, T, V) temporary, not two
            }
        }
    }

    /**
     * Runs new sequences ids (m, T), right-padded, with real lengths {@code lengths}, into cache
     * slots [firstSlot, firstSlot + m) and returns the logits (m, V) that follow each one's last real token.
     */
    public NDArray prefill(ParameterStore ps, NDArray ids, int[] lengths, KvCache cache, int firstSlot) {
        NDManager step = ids.getManager();
        long m = ids.getShape().get(0);
        int t = (int) ids.getShape().get(1);
        if (lengths.length != m) throw new IllegalArgumentException(lengths.length + " lengths for " + m + " rows");
        AttentionInputs in = AttentionInputs.prefill(rotary.prefix(step, t), causalMask(step, t, config.groupSize()), cache, firstSlot);
        NDArray h = trunk(ps, embed(ps, ids, false), in, false);
        long[] last = new long[(int) m];
        for (int i = 0; i < m; i++) {
            if (lengths[i] < 1 || lengths[i] > t) {
                throw new IllegalArgumentException("row " + i + " has length " + lengths[i] + ", outside 1.." + t);
            }
            last[i] = (long) i * t + lengths[i] - 1;
        }
        NDArray lastHidden = h.reshape(m * t, config.dModel()).get(step.create(last));
        return head(ps, lastHidden, false);
    }

    /**
     * One decode step for running slots 0 .. n-1: {@code tokens[i]} sits at {@code positions[i]}; its
     * key and value go into the cache there, and it attends to cached positions 0 .. positions[i].
     * Returns the next-token logits (n, V).
     */
    public NDArray decode(ParameterStore ps, NDManager step, int[] tokens, int[] positions, KvCache cache) {
        int n = tokens.length;
        if (positions.length != n) throw new IllegalArgumentException(positions.length + " positions for " + n + " tokens");
        long[] tokenIds = new long[n];
        long[] pos = new long[n];
        int visible = 0;
        boolean aligned = true;
        for (int i = 0; i < n; i++) {
            if (positions[i] < 0 || positions[i] >= cache.length()) {
                throw new IllegalArgumentException("position " + positions[i] + " outside the cache length " + cache.length());
            }
            tokenIds[i] = tokens[i];
            pos[i] = positions[i];
            visible = Math.max(visible, positions[i] + 1);
            aligned &= positions[i] == positions[0];
        }
        // Rows at one position see the same prefix: nothing to mask.
        NDArray mask = null;
        if (!aligned) {
            float[] m = new float[n * visible];
            for (int i = 0; i < n; i++) Arrays.fill(m, i * visible + positions[i] + 1, (i + 1) * visible, MASKED);
            mask = step.create(m, new Shape(n, 1, 1, visible));
        }
        NDArray position = step.create(pos);
        AttentionInputs in = AttentionInputs.step(rotary.at(step, positions), mask, cache, cache.step(step, position, visible));
        return head(ps, trunk(ps, embed(ps, step.create(tokenIds), false), in, false), false);
    }

    private NDArray hidden(ParameterStore ps, NDArray ids, boolean training) {
        NDManager step = ids.getManager();
        int t = (int) ids.getShape().get(1);
        AttentionInputs in = AttentionInputs.full(rotary.prefix(step, t), causalMask(step, t, config.groupSize()));
        return trunk(ps, embed(ps, ids, training), in, training);
    }

    private NDArray embed(ParameterStore ps, NDArray ids, boolean training) {
        NDArray table = ps.getValue(embedding, ids.getDevice(), training);
        return ids.getNDArrayInternal().embedding(ids, table, SparseFormat.DENSE).head();
    }

    private NDArray trunk(ParameterStore ps, NDArray x, AttentionInputs in, boolean training) {
        for (DecoderLayer layer : layers) {
            x = layer.forward(ps, x, in, training);
        }
        return x;
    }

    /** Final norm, then the head: hidden · headᵀ (the embedding when tied). */
    private NDArray head(ParameterStore ps, NDArray h, boolean training) {
        NDArray normed = norm.forward(ps, h, training);
        return Linear.linear(normed, ps.getValue(head == null ? embedding : head, h.getDevice(), training)).head();
    }

    /**
     * Additive causal mask (t, t): 0 on and below the diagonal; repeated {@code group} times down the
     * rows, (group·t, t), for attention that stacks a key head's query heads along time.
     */
    private static NDArray causalMask(NDManager step, int t, int group) {
        float[] mask = new float[group * t * t];
        for (int g = 0; g < group; g++) {
            for (int i = 0; i < t; i++) {
                int row = (g * t + i) * t;
                Arrays.fill(mask, row + i + 1, row + t, MASKED);
            }
        }
        return step.create(mask, new Shape((long) group * t, t));
    }

    private static Parameter weightOf(Linear linear) {
        return linear.getParameters().get("weight");
    }

    @Override
    protected NDList forwardInternal(ParameterStore ps, NDList inputs, boolean training, PairList<String, Object> params) {
        return new NDList(logits(ps, inputs.head(), training));
    }

    @Override
    public Shape[] getOutputShapes(Shape[] inputShapes) {
        Shape ids = inputShapes[0];
        return new Shape[] {new Shape(ids.get(0), ids.get(1), config.vocab())};
    }

    @Override
    protected void initializeChildBlocks(NDManager manager, DataType dataType, Shape... inputShapes) {
        Shape ids = inputShapes[0];
        Shape x = new Shape(ids.get(0), ids.get(1), config.dModel());
        for (DecoderLayer layer : layers) layer.initialize(manager, dataType, x);
        norm.initialize(manager, dataType, x);
    }
}
