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
 * heads contiguous, the layout of the PyTorch reference), softmax(QKᵀ/√dh + mask)·V, an output
 * projection, no biases, no dropout. DJL's ScaledDotProductAttentionBlock is not used: it has no
 * cache and biased projections.
 */
public final class CausalSelfAttention extends AbstractBlock {

    private static final byte VERSION = 1;

    private final int dModel;
    private final int heads;
    private final int headSize;
    private final float scale;
    private final RotaryTable rotary;
    final Linear qkv;
    final Linear out;

    CausalSelfAttention(ModelConfig config, RotaryTable rotary) {
        super(VERSION);
        this.dModel = config.dModel();
        this.heads = config.heads();
        this.headSize = config.headSize();
        this.scale = (float) (1.0 / Math.sqrt(headSize));
        this.rotary = rotary;
        qkv = addChildBlock("qkv", Linear.builder().setUnits(3L * dModel).optBias(false).build());
        out = addChildBlock("out", Linear.builder().setUnits(dModel).optBias(false).build());
    }

    NDArray forward(ParameterStore ps, NDArray x, int layer, AttentionInputs in, boolean training) {
        long b = x.getShape().get(0);
        long t = x.getShape().get(1);
        NDArray proj = qkv.forward(ps, new NDList(x), training).head();
        // (B, T, 3, H, dh) → (3, B, H, T, dh): q and k rotate together in one pass.
        NDArray split = proj.reshape(b, t, 3, heads, headSize).transpose(2, 0, 3, 1, 4);
        NDArray qk = rotary.rotate(split.get(":2"), in.rotary());
        NDArray q = qk.get(0).mul(scale);
        NDArray k = qk.get(1);
        NDArray v = split.get(2);
        if (in.cache() != null) {
            if (in.isStep()) {
                in.cache().writeStep(layer, in.rowIndex(), in.positions(), k, v);
                NDArray[] kv = in.cache().read(x.getManager(), layer, (int) b, in.visible());
                k = kv[0];
                v = kv[1];
            } else {
                in.cache().writeBlock(layer, in.firstSlot(), k, v);
            }
        }
        NDArray scores = q.matMul(k.transpose(0, 1, 3, 2)).add(in.mask());
        NDArray mixed = scores.softmax(-1).matMul(v); // (B, H, T, dh)
        NDArray merged = mixed.transpose(0, 2, 1, 3).reshape(b, t, dModel);
        return out.forward(ps, new NDList(merged), training).head();
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
