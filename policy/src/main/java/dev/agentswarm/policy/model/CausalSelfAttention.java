package dev.agentswarm.policy.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.AbstractBlock;
import ai.djl.nn.core.Linear;
import ai.djl.training.ParameterStore;
import ai.djl.util.PairList;

/**
 * Causal self-attention with rotary positions and grouped-query attention: one fused q|k|v
 * projection (head rows: the query heads, then the key heads, then the value heads), softmax(QKᵀ/√dh
 * + mask)·V (the 1/√dh is folded into q's rotary table), an output projection, no dropout. With
 * {@code kvHeads < heads}, each key/value head serves {@code heads / kvHeads} consecutive query heads
 * (Hugging Face's repeat_kv order); the queries of a group are stacked along time so one product
 * serves the group and the keys are never copied. Qwen2 adds biases to q, k and v; Qwen3 normalises
 * each query and key head (RMSNorm over the head size) before rotary. DJL's
 * ScaledDotProductAttentionBlock is not used: it has no cache, no groups and biased projections.
 */
public final class CausalSelfAttention extends AbstractBlock {

    private static final byte VERSION = 2;

    private final int heads;
    private final int kvHeads;
    private final int group;
    private final int headSize;
    private final RotaryTable rotary;
    final Linear qkv;
    final Linear out;
    /** Qwen3's per-head norms of queries and keys; null for the other families. */
    final RmsNorm qNorm;
    final RmsNorm kNorm;
    /** The layer's LoRA updates, or null: set by {@link LoraAdapter}. */
    LoraLayer lora;

    CausalSelfAttention(ModelConfig config, RotaryTable rotary) {
        super(VERSION);
        this.heads = config.heads();
        this.kvHeads = config.kvHeads();
        this.group = config.groupSize();
        this.headSize = config.headSize();
        this.rotary = rotary;
        qkv = addChildBlock("qkv", Linear.builder().setUnits((long) config.projectionHeads() * headSize)
                .optBias(config.qkvBias()).build());
        out = addChildBlock("out", Linear.builder().setUnits(config.dModel()).optBias(false).build());
        if (config.qkNorm()) {
            qNorm = addChildBlock("q_norm", new RmsNorm(headSize, config.normEps()));
            kNorm = addChildBlock("k_norm", new RmsNorm(headSize, config.normEps()));
        } else {
            qNorm = null;
            kNorm = null;
        }
    }

    NDArray forward(ParameterStore ps, NDArray x, int layer, AttentionInputs in, boolean training) {
        return in.isStep() ? step(ps, x, layer, in) : sequence(ps, x, layer, in, training);
    }

    /** A pass over whole sequences x (B, T, E): training, scoring and prefill. */
    private NDArray sequence(ParameterStore ps, NDArray x, int layer, AttentionInputs in, boolean training) {
        long b = x.getShape().get(0);
        long t = x.getShape().get(1);
        NDArray proj = project(ps, x, training);
        // (B, T, rows, dh) → (B, rows, T, dh); the tables are (rows, T, dh).
        NDArray[] qkv = queryKeyValue(ps, proj.reshape(b, t, heads + 2L * kvHeads, headSize).transpose(0, 2, 1, 3),
                1, in.rotary(), 0, training);
        NDArray q = qkv[0];
        NDArray k = qkv[1];
        NDArray v = qkv[2];
        if (in.cache() != null) {
            NDArray keysValues = NDArrays.stack(new NDList(k, v), 0); // (2, B, kvHeads, T, dh)
            in.cache().writeBlock(layer, in.firstSlot(), keysValues);
        }
        if (group > 1) q = q.reshape(b, kvHeads, group * t, headSize); // a group's queries, stacked along time
        NDArray scores = q.matMul(k.transpose(0, 1, 3, 2)).addi(in.mask()); // in place: the product's backward needs only q and k
        NDArray mixed = scores.softmax(-1).matMul(v).reshape(b, heads, t, headSize);
        NDArray merged = mixed.transpose(0, 2, 1, 3).reshape(b, t, (long) heads * headSize);
        return output(ps, merged, training);
    }

    /**
     * One decode step for x (n, E), one token per running row: its key and value go into the cache,
     * then its query attends to the row's cached positions. Every native call here runs once per layer
     * per generated token, so the step keeps them few.
     */
    private NDArray step(ParameterStore ps, NDArray x, int layer, AttentionInputs in) {
        long n = x.getShape().get(0);
        NDArray proj = project(ps, x, false).reshape(n, heads + 2L * kvHeads, headSize);
        NDArray[] qkv = queryKeyValue(ps, proj, 1, in.rotary(), 1, false); // tables (n, rows, dh)
        in.cache().writeStep(layer, in.step(), NDArrays.stack(new NDList(qkv[1], qkv[2]), 1)); // (n, 2, kvHeads, dh)
        NDArray[] kv = in.cache().read(x.getManager(), layer, in.step());
        NDArray q = qkv[0].reshape(n, kvHeads, group, headSize);
        NDArray scores = q.matMul(kv[0].transpose(0, 1, 3, 2)); // (n, kvHeads, group, visible)
        if (in.mask() != null) scores = scores.add(in.mask());
        NDArray mixed = scores.softmax(-1).matMul(kv[1]).reshape(n, (long) heads * headSize);
        return output(ps, mixed, false);
    }

    /**
     * q, k and v of a projection whose head rows lie on {@code axis}: q and k normed (Qwen3) and
     * rotated, v as projected. One split, whose backward is one concatenation: slicing q, k and v
     * apart cost a zero-filled projection-sized gradient per slice, and as much again to sum them.
     *
     * @param tables rotary cos and sin laid out like the projection, head rows on {@code tableAxis}
     */
    private NDArray[] queryKeyValue(ParameterStore ps, NDArray rows, int axis, NDArray[] tables, int tableAxis,
                                    boolean training) {
        long[] at = {heads, heads + kvHeads};
        NDList parts = rows.split(at, axis);
        NDList cos = tables[0].split(at, tableAxis);
        NDList sin = tables[1].split(at, tableAxis);
        NDArray q = parts.get(0);
        NDArray k = parts.get(1);
        if (qNorm != null) {
            q = qNorm.forward(ps, q, training);
            k = kNorm.forward(ps, k, training);
        }
        return new NDArray[] {
            rotary.rotate(q, new NDArray[] {cos.get(0), sin.get(0)}),
            rotary.rotate(k, new NDArray[] {cos.get(1), sin.get(1)}),
            parts.get(2)
        };
    }

    /** The fused q|k|v projection, with the LoRA updates of q, k and v in their rows. */
    private NDArray project(ParameterStore ps, NDArray x, boolean training) {
        NDArray proj = qkv.forward(ps, new NDList(x), training).head();
        return lora == null ? proj : lora.applyQkv(ps, x, proj, training);
    }

    private NDArray output(ParameterStore ps, NDArray mixed, boolean training) {
        NDArray y = out.forward(ps, new NDList(mixed), training).head();
        return lora == null ? y : lora.apply(ps, LoraTarget.O_PROJ, mixed, y, training);
    }

    @Override
    protected NDList forwardInternal(ParameterStore ps, NDList inputs, boolean training, PairList<String, Object> params) {
        throw new UnsupportedOperationException("called by DecoderLayer with its AttentionInputs");
    }

    @Override
    public Shape[] getOutputShapes(Shape[] inputShapes) {
        return new Shape[] {inputShapes[0]};
    }

    @Override
    protected void initializeChildBlocks(NDManager manager, DataType dataType, Shape... inputShapes) {
        Shape x = inputShapes[0];
        qkv.initialize(manager, dataType, x);
        out.initialize(manager, dataType, x.slice(0, x.dimension() - 1).add((long) heads * headSize));
        if (qNorm != null) {
            Shape head = new Shape(1, headSize);
            qNorm.initialize(manager, dataType, head);
            kNorm.initialize(manager, dataType, head);
        }
    }
}
