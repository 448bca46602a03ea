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
        NDArray silu = Activation.sigmoid(g).mul(g);
        return down.forward(ps, new NDList(silu.mul(u)), training).head();
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
