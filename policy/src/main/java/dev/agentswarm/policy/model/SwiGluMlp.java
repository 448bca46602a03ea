package dev.agentswarm.policy.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.AbstractBlock;
import ai.djl.nn.Activation;
import ai.djl.nn.core.Linear;
import ai.djl.training.ParameterStore;
import ai.djl.util.PairList;

/** The SwiGLU feed-forward of Llama: {@code down(silu(gate(x)) · up(x))}, no biases. */
public final class SwiGluMlp extends AbstractBlock {

    private static final byte VERSION = 1;

    final Linear gate;
    final Linear up;
    final Linear down;
    private final int hidden;
    /** The layer's LoRA updates, or null: set by {@link LoraAdapter}. */
    LoraLayer lora;

    SwiGluMlp(int dModel, int hidden) {
        super(VERSION);
        this.hidden = hidden;
        gate = addChildBlock("gate", Linear.builder().setUnits(hidden).optBias(false).build());
        up = addChildBlock("up", Linear.builder().setUnits(hidden).optBias(false).build());
        down = addChildBlock("down", Linear.builder().setUnits(dModel).optBias(false).build());
    }

    NDArray forward(ParameterStore ps, NDArray x, boolean training) {
        NDList in = new NDList(x);
        NDArray g = gate.forward(ps, in, training).head();
        NDArray u = up.forward(ps, in, training).head();
        if (lora != null) {
            g = lora.apply(ps, LoraTarget.GATE_PROJ, x, g, training);
            u = lora.apply(ps, LoraTarget.UP_PROJ, x, u, training);
        }
        NDArray h = Activation.sigmoid(g).mul(g).mul(u);
        NDArray y = down.forward(ps, new NDList(h), training).head();
        return lora == null ? y : lora.apply(ps, LoraTarget.DOWN_PROJ, h, y, training);
    }

    @Override
    protected NDList forwardInternal(ParameterStore ps, NDList inputs, boolean training, PairList<String, Object> params) {
        return new NDList(forward(ps, inputs.head(), training));
    }

    @Override
    public Shape[] getOutputShapes(Shape[] inputShapes) {
        return new Shape[] {inputShapes[0]};
    }

    @Override
    protected void initializeChildBlocks(NDManager manager, DataType dataType, Shape... inputShapes) {
        Shape x = inputShapes[0];
        gate.initialize(manager, dataType, x);
        up.initialize(manager, dataType, x);
        Shape h = x.slice(0, x.dimension() - 1).add(hidden);
        down.initialize(manager, dataType, h);
    }
}
