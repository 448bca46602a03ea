package dev.agentswarm.policy.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;

/**
 * Rotary position tables in the "half split" layout of Llama and Hugging Face: dimension i is
 * paired with i + dh/2. {@code rotate(x) = x·cos + rotateHalf(x)·sin}, where rotateHalf is a fixed
 * signed permutation applied as one small matmul (one native call instead of split, negate and
 * concatenate). Tables cover positions 0 .. context-1.
 */
public final class RotaryTable implements AutoCloseable {

    private final NDArray cos;
    private final NDArray sin;
    private final NDArray rotateHalf;
    private final int positions;

    public RotaryTable(NDManager manager, int headSize, int positions, double theta) {
        this.positions = positions;
        int half = headSize / 2;
        float[] c = new float[positions * headSize];
        float[] s = new float[positions * headSize];
        for (int p = 0; p < positions; p++) {
            for (int i = 0; i < half; i++) {
                double inv = 1.0 / Math.pow(theta, (2.0 * i) / headSize);
                // Rounded to float before cos/sin, as the reference computes its angle table in fp32.
                float angle = (float) p * (float) inv;
                c[p * headSize + i] = c[p * headSize + i + half] = (float) Math.cos(angle);
                s[p * headSize + i] = s[p * headSize + i + half] = (float) Math.sin(angle);
            }
        }
        cos = manager.create(c, new Shape(positions, headSize));
        sin = manager.create(s, new Shape(positions, headSize));
        // rotateHalf(x) = cat(-x2, x1) = x @ R with R[i + half, i] = -1 and R[i, i + half] = 1.
        float[] r = new float[headSize * headSize];
        for (int i = 0; i < half; i++) {
            r[(i + half) * headSize + i] = -1f;
            r[i * headSize + i + half] = 1f;
        }
        rotateHalf = manager.create(r, new Shape(headSize, headSize));
    }

    public int positions() {
        return positions;
    }

    /** Tables for positions 0 .. t-1, shaped (t, dh), attached to {@code step}: they broadcast over (…, t, dh). */
    public NDArray[] prefix(NDManager step, int t) {
        checkLength(t);
        NDIndex first = new NDIndex(":{}", t);
        return new NDArray[] {cos.get(step, first), sin.get(step, first)};
    }

    /**
     * Tables for one position per row, shaped (rows, 1, 1, dh), attached to the positions' manager:
     * they broadcast over (…, rows, heads, 1, dh).
     */
    public NDArray[] at(NDArray positionPerRow) {
        NDManager step = positionPerRow.getManager();
        long rows = positionPerRow.getShape().get(0);
        Shape shape = new Shape(rows, 1, 1, cos.getShape().get(1));
        NDIndex pick = new NDIndex("{}", positionPerRow);
        return new NDArray[] {cos.get(step, pick).reshape(shape), sin.get(step, pick).reshape(shape)};
    }

    /** {@code x·cos + rotateHalf(x)·sin}, with x's last axis the head dimension. */
    public NDArray rotate(NDArray x, NDArray[] cosSin) {
        return x.mul(cosSin[0]).add(x.matMul(rotateHalf).mul(cosSin[1]));
    }

    private void checkLength(int t) {
        if (t > positions) {
            throw new IllegalArgumentException("sequence of " + t + " tokens exceeds the model context of " + positions);
        }
    }

    @Override
    public void close() {
        cos.close();
        sin.close();
        rotateHalf.close();
    }
}
