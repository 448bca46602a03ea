package dev.agentswarm.policy.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.AbstractBlock;
import ai.djl.training.ParameterStore;
import ai.djl.util.PairList;

/** One pre-norm decoder layer: {@code x + attn(norm1(x))}, then {@code x + mlp(norm2(x))}. */
public final class DecoderLayer extends AbstractBlock {

    private static final byte VERSION = 1;

    final RmsNorm norm1;
    final CausalSelfAttention attention;
    final RmsNorm norm2;
    final SwiGluMlp mlp;
    private final int index;

    DecoderLayer(ModelConfig config, RotaryTable rotary, int index) {
        super(VERSION);
        this.index = index;
        norm1 = addChildBlock("norm1", new RmsNorm(config.dModel(), config.normEps()));
        attention = addChildBlock("attn", new CausalSelfAttention(config, rotary));
        norm2 = addChildBlock("norm2", new RmsNorm(config.dModel(), config.normEps()));
        mlp = addChildBlock("mlp", new SwiGluMlp(config.dModel(), config.ffn()));
    }

    /** Routes this layer's linear layers through {@code lora}'s updates; null removes them. */
    void useAdapter(LoraLayer lora) {
        attention.lora = lora;
        mlp.lora = lora;
    }

    NDArray forward(ParameterStore ps, NDArray x, AttentionInputs in, boolean training) {
        NDArray h = x.add(attention.forward(ps, norm1.forward(ps, x, training), index, in, training));
        return h.add(mlp.forward(ps, norm2.forward(ps, h, training), training));
    }

    @Override
    protected NDList forwardInternal(ParameterStore ps, NDList inputs, boolean training, PairList<String, Object> params) {
        throw new UnsupportedOperationException("called by CausalLm with its AttentionInputs");
    }

    @Override
    public Shape[] getOutputShapes(Shape[] inputShapes) {
        return new Shape[] {inputShapes[0]};
    }

    @Override
    protected void initializeChildBlocks(NDManager manager, DataType dataType, Shape... inputShapes) {
        for (var child : getChildren().values()) {
            child.initialize(manager, dataType, inputShapes[0]);
        }
    }
}
