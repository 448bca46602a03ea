package dev.agentswarm.policy.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.AbstractBlock;
import ai.djl.nn.Parameter;
import ai.djl.training.ParameterStore;
import ai.djl.util.PairList;

/**
 * Root-mean-square normalisation over the last axis with a learned gain (no bias, no centring):
 * {@code x / sqrt(mean(x²) + eps) · weight}. Each position is normalised on its own, so nothing
 * leaks across time steps (DJL's LayerNorm default would normalise over (T, E)).
 */
public final class RmsNorm extends AbstractBlock {

    private static final byte VERSION = 1;

    private final float eps;
    final Parameter weight;
    /**
     * eps as an array made with the gain at initialization: adding a Java scalar would create an
     * array at every call.
     */
    private NDArray epsArray;

    public RmsNorm(int size, double eps) {
        super(VERSION);
        this.eps = (float) eps;
        this.weight = addParameter(Parameter.builder()
                .setName("weight")
                .setType(Parameter.Type.GAMMA)
                .optShape(new Shape(size))
                .build());
    }

    public NDArray forward(ParameterStore ps, NDArray x, boolean training) {
        NDArray gain = ps.getValue(weight, x.getDevice(), training);
        NDArray meanSquare = x.square().mean(new int[] {-1}, true);
        return x.div(meanSquare.add(epsArray).sqrt()).mul(gain);
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
        // No children; the gain's shape is fixed at construction. eps lives beside the gain.
        epsArray = manager.create(eps);
    }
}
