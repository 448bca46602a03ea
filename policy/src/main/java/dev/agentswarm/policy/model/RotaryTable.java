package dev.agentswarm.policy.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
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
 *
 * <p>The projection is laid out by head rows: the query heads, then the key heads, then the value
 * heads ({@link ModelConfig#projectionHeads}); with grouped-query attention there are fewer key and
 * value heads than query heads. The tables are kept per part (q | k | v) and spread over the head rows
 * once per pass ({@link #prefix}, {@link #at}) by a lookup, not per layer.
 */
public final class RotaryTable implements AutoCloseable {

    /** Rows (position), columns q | k | v, each dh wide: the layout a per-row lookup returns. */
    private final NDArray cos;
    private final NDArray sin;
    /** The tables as (position·3 + part, dh) rows, for the per-row lookup of a decode step. */
    private final NDArray cosRows;
    private final NDArray sinRows;
    /** The same tables in Java, for the hybrid decoder. */
    private final float[] cosTable;
    private final float[] sinTable;
    /** For each head row of the projection, its part: 0 query, 1 key, 2 value. */
    private final long[] partOfRow;
    private final int positions;
    private final int headSize;

    public RotaryTable(NDManager manager, ModelConfig config) {
        this.positions = config.context();
        this.headSize = config.headSize();
        int half = headSize / 2;
        float scale = (float) (1.0 / Math.sqrt(headSize));
        float[] inverse = config.ropeScaling().inverseFrequencies(headSize, config.ropeTheta());
        int width = 3 * headSize;
        float[] c = new float[positions * width];
        float[] s = new float[positions * width];
        for (int p = 0; p < positions; p++) {
            int row = p * width;
            for (int i = 0; i < half; i++) {
                // The angle in fp32, as Hugging Face computes its position × frequency table.
                float angle = (float) p * inverse[i];
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
        // The engine's sin carries rotateHalf's sign: rotateHalf(x)·sin = swapHalves(x)·(-sin₁ | sin₂).
        float[] signed = s.clone();
        for (int p = 0; p < positions * 3; p++) {
            for (int i = 0; i < half; i++) signed[p * headSize + i] = -signed[p * headSize + i];
        }
        sin = manager.create(signed, new Shape(positions, width));
        cosRows = cos.reshape((long) positions * 3, headSize);
        sinRows = sin.reshape((long) positions * 3, headSize);
        partOfRow = new long[config.projectionHeads()];
        for (int j = 0; j < partOfRow.length; j++) {
            partOfRow[j] = j < config.heads() ? 0 : j < config.heads() + config.kvHeads() ? 1 : 2;
        }
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
     * Tables for positions 0 .. t-1, shaped (rows, t, dh) and attached to {@code step}: they broadcast
     * over a projection laid out (batch, rows, t, dh), rows being the projection's head rows.
     */
    public NDArray[] prefix(NDManager step, int t) {
        if (t > positions) {
            throw new IllegalArgumentException("sequence of " + t + " tokens exceeds the model context of " + positions);
        }
        NDIndex first = new NDIndex(":{}", t);
        NDArray part = step.create(partOfRow);
        return new NDArray[] {prefixOf(cos.get(step, first), part, t), prefixOf(sin.get(step, first), part, t)};
    }

    private NDArray prefixOf(NDArray rows, NDArray part, int t) {
        NDArray parts = rows.reshape(t, 3, headSize).transpose(1, 0, 2).reshape(3, (long) t * headSize);
        return lookup(part, parts).reshape(partOfRow.length, t, headSize);
    }

    /**
     * Tables for one position per row, shaped (rows, projection rows, dh): they broadcast over a decode
     * step's projection laid out (rows, projection rows, dh), attached to {@code step}.
     */
    public NDArray[] at(NDManager step, int[] positionsOf) {
        int rows = positionsOf.length;
        int parts = partOfRow.length;
        // Row r's head row j reads the part (q|k|v) of j at r's position: one lookup in the (position·3 + part, dh) table.
        long[] index = new long[rows * parts];
        for (int r = 0; r < rows; r++) {
            for (int j = 0; j < parts; j++) index[r * parts + j] = positionsOf[r] * 3L + partOfRow[j];
        }
        NDArray where = step.create(index);
        Shape shape = new Shape(rows, parts, headSize);
        return new NDArray[] {lookup(where, cosRows).reshape(shape), lookup(where, sinRows).reshape(shape)};
    }

    private static NDArray lookup(NDArray positions, NDArray table) {
        // An embedding lookup is one native call; indexing with an array costs several.
        return positions.getNDArrayInternal().embedding(positions, table, SparseFormat.DENSE).head();
    }

    /**
     * {@code x·cos + rotateHalf(x)·sin}, with x's last axis the head dimension, written as
     * {@code x·cos + swapHalves(x)·signedSin}: a copy instead of a product with a (dh × dh) permutation,
     * which cost 2·dh flops per element (a tenth of a Qwen3-0.6B layer's training flops at dh 128).
     */
    public NDArray rotate(NDArray x, NDArray[] cosSin) {
        int last = x.getShape().dimension() - 1;
        NDList halves = x.split(2, last); // one split: its backward is one concatenation, not two zero-filled slices
        NDArray swapped = NDArrays.concat(new NDList(halves.get(1), halves.get(0)), last);
        return x.mul(cosSin[0]).addi(swapped.muli(cosSin[1]));
    }

    @Override
    public void close() {
        cos.close();
        sin.close();
        cosRows.close();
        sinRows.close();
    }
}
