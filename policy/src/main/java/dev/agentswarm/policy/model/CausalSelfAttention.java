package dev.agentswarm.policy.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.AbstractBlock;
import ai.djl.nn.core.Linear;
import ai.djl.training.ParameterStore;
import ai.djl.util.PairList;

/**
 * Causal multi-head self-attention with rotary positions: one fused q|k|v projection (rows q, k, v,
 * heads contiguous, the layout of the PyTorch reference), softmax(QKᵀ/√dh + mask)·V (the 1/√dh is
 * folded into q's rotary table), an output
 * projection, no biases, no dropout. DJL's ScaledDotProductAttentionBlock is not used: it has no
 * cache and biased projections.
 */
public final class CausalSelfAttention extends AbstractBlock {

    private static final byte VERSION = 1;

    private final int dModel;
    private final int heads;
    private final int headSize;
    private final RotaryTable rotary;
    final Linear qkv;
    final Linear out;

    CausalSelfAttention(ModelConfig config, RotaryTable rotary) {
        super(VERSION);
        this.dModel = config.dModel();
        this.heads = config.heads();
        this.headSize = config.headSize();
        this.rotary = rotary;
        qkv = addChildBlock("qkv", Linear.builder().setUnits(3L * dModel).optBias(false).build());
        out = addChildBlock("out", Linear.builder().setUnits(dModel).optBias(false).build());
    }

    NDArray forward(ParameterStore ps, NDArray x, int layer, AttentionInputs in, boolean training) {
        return in.isStep() ? step(ps, x, layer, in) : sequence(ps, x, layer, in, training);
    }

    /** A pass over whole sequences x (B, T, E): training, scoring and prefill. */
    private NDArray sequence(ParameterStore ps, NDArray x, int layer, AttentionInputs in, boolean training) {
        long b = x.getShape().get(0);
        long t = x.getShape().get(1);
        NDArray proj = qkv.forward(ps, new NDList(x), training).head();
        // (B, T, 3, H, dh) → (3, B, H, T, dh): q, k and v rotate (and q scales) in one pass.
        NDArray qkvRotated = rotary.rotate(proj.reshape(b, t, 3, heads, headSize).transpose(2, 0, 3, 1, 4), in.rotary());
        if (in.cache() != null) in.cache().writeBlock(layer, in.firstSlot(), qkvRotated.get("1:"));
        NDArray q = qkvRotated.get(0);
        NDArray k = qkvRotated.get(1);
        NDArray v = qkvRotated.get(2);
        NDArray scores = q.matMul(k.transpose(0, 1, 3, 2)).add(in.mask());
        NDArray mixed = scores.softmax(-1).matMul(v); // (B, H, T, dh)
        NDArray merged = mixed.transpose(0, 2, 1, 3).reshape(b, t, dModel);
        return out.forward(ps, new NDList(merged), training).head();
    }

    /**
     * One decode step for x (n, E), one token per running row: its key and value go into the cache,
     * then its query attends to the row's cached positions. Every native call here runs once per layer
     * per generated token, so the step keeps them few.
     */
    private NDArray step(ParameterStore ps, NDArray x, int layer, AttentionInputs in) {
        long n = x.getShape().get(0);
        NDArray proj = qkv.forward(ps, new NDList(x), false).head().reshape(n, 3, heads, headSize);
        NDArray qkvRotated = rotary.rotate(proj, in.rotary()); // (n, 3, H, dh)
        in.cache().writeStep(layer, in.step(), qkvRotated.get(":, 1:"));
        NDArray[] kv = in.cache().read(x.getManager(), layer, in.step());
        NDArray q = qkvRotated.get(":, 0").expandDims(2); // (n, H, 1, dh)
        NDArray scores = q.matMul(kv[0].transpose(0, 1, 3, 2));
        if (in.mask() != null) scores = scores.add(in.mask());
        return out.forward(ps, new NDList(scores.softmax(-1).matMul(kv[1]).reshape(n, dModel)), false).head();
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
        qkv.initialize(manager, dataType, inputShapes[0]);
        out.initialize(manager, dataType, inputShapes[0]);
    }
}
