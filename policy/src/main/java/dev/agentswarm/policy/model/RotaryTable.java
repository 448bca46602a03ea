package dev.agentswarm.policy.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import ai.djl.ndarray.types.SparseFormat;

/**
 * Rotary positions for the fused q|k|v projection, in the "half split" layout of Llama and Hugging
 * Face: dimension i is paired with i + dh/2, and {@code rotate(x) = x·cos + rotateHalf(x)·sin}. The
 * tables cover all three parts so one pass handles the whole projection: q is rotated and scaled by
 * the attention's 1/√dh, k is rotated, v passes through (cos 1, sin 0). That saves the split, the
 * separate scaling and the native calls they cost at every layer of every decode step. rotateHalf is
 * a fixed signed permutation applied as one small matmul (one call instead of split, negate, concat).
 */
public final class RotaryTable implements AutoCloseable {

    /** Rows (position), columns q | k | v, each dh wide: the layout a per-row lookup returns. */
    private final NDArray cos;
    private final NDArray sin;
    /** The same tables in Java, for the hybrid decoder. */
    private final float[] cosTable;
    private final float[] sinTable;
    private final NDArray rotateHalf;
    private final int positions;
    private final int headSize;

    public RotaryTable(NDManager manager, int headSize, int positions, double theta) {
        this.positions = positions;
        this.headSize = headSize;
        int half = headSize / 2;
        float scale = (float) (1.0 / Math.sqrt(headSize));
        int width = 3 * headSize;
        float[] c = new float[positions * width];
        float[] s = new float[positions * width];
        for (int p = 0; p < positions; p++) {
            int row = p * width;
            for (int i = 0; i < half; i++) {
                double inv = 1.0 / Math.pow(theta, (2.0 * i) / headSize);
                // Rounded to float before cos/sin, as the reference computes its angle table in fp32.
                float angle = (float) p * (float) inv;
                float ci = (float) Math.cos(angle);
                float si = (float) Math.sin(angle);
                for (int j : new int[] {i, i + half}) {
                    c[row + j] = ci * scale;
                    s[row + j] = si * scale;
                    c[row + headSize + j] = ci;
                    s[row + headSize + j] = si;
                    c[row + 2 * headSize + j] = 1f;
                }
            }
        }
        cosTable = c;
        sinTable = s;
        cos = manager.create(c, new Shape(positions, width));
        sin = manager.create(s, new Shape(positions, width));
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

    /** cos per (position, q|k|v column), row-major (positions × 3·dh); q's columns carry the 1/√dh. */
    float[] cosTable() {
        return cosTable;
    }

    /** sin laid out as {@link #cosTable}. */
    float[] sinTable() {
        return sinTable;
    }

    /**
     * Tables for positions 0 .. t-1, shaped (3, 1, 1, t, dh) and attached to {@code step}: they
     * broadcast over a projection laid out (3, batch, heads, t, dh).
     */
    public NDArray[] prefix(NDManager step, int t) {
        if (t > positions) {
            throw new IllegalArgumentException("sequence of " + t + " tokens exceeds the model context of " + positions);
        }
        NDIndex first = new NDIndex(":{}", t);
        Shape shape = new Shape(3, 1, 1, t, headSize);
        return new NDArray[] {prefixOf(cos.get(step, first), t, shape), prefixOf(sin.get(step, first), t, shape)};
    }

    private NDArray prefixOf(NDArray rows, int t, Shape shape) {
        return rows.reshape(t, 3, headSize).transpose(1, 0, 2).reshape(shape);
    }

    /**
     * Tables for one position per row, shaped (rows, 3, 1, dh): they broadcast over a decode step's
     * projection laid out (rows, 3, heads, dh). {@code positionPerRow} is an INT64 vector; the result is
     * attached to its manager.
     */
    public NDArray[] at(NDArray positionPerRow) {
        long rows = positionPerRow.getShape().get(0);
        Shape shape = new Shape(rows, 3, 1, headSize);
        return new NDArray[] {lookup(positionPerRow, cos).reshape(shape), lookup(positionPerRow, sin).reshape(shape)};
    }

    private static NDArray lookup(NDArray positions, NDArray table) {
        // An embedding lookup is one native call; indexing with an array costs several.
        return positions.getNDArrayInternal().embedding(positions, table, SparseFormat.DENSE).head();
    }

    /** {@code x·cos + rotateHalf(x)·sin}, with x's last axis the head dimension. */
    public NDArray rotate(NDArray x, NDArray[] cosSin) {
        return x.mul(cosSin[0]).add(x.matMul(rotateHalf).mul(cosSin[1]));
    }

    @Override
    public void close() {
        cos.close();
        sin.close();
        rotateHalf.close();
    }
}
