package dev.agentswarm.policy.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Parameter;
import ai.djl.nn.core.Linear;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * A decode step for a few running rows (batch ≤ {@link #maxRows}) with one native call per weight
 * matrix. At small batches a step is dominated not by arithmetic but by the ~150 engine calls the
 * whole-batch path ({@link CausalLm#decode}) makes per token, each with its dispatch, allocation and
 * cache misses. Here libtorch does only the matrix products (the memory-bound part, where its GEMV
 * is as fast as anything); norms, rotary positions, attention over the cache, SwiGLU and residuals run
 * in Java on memory shared with the engine: the products read their inputs from direct buffers
 * wrapped once as arrays, and the KV cache and the small weights are read and written through
 * zero-copy views. The result is the same function as {@link CausalLm#decode} (a test checks both
 * against the full causal pass), writing the same {@link KvCache}, so the two paths can take turns on
 * one batch as it grows and shrinks.
 *
 * <p>Not thread-safe: it owns scratch buffers. One per generator; close it before the cache.
 */
public final class SmallBatchDecoder implements AutoCloseable {

    private final CausalLm model;
    private final KvCache cache;
    private final ModelConfig c;
    private final int maxRows;
    private final NDManager manager;
    /** Inputs of the products of width d and ffn, wrapped as (n, width) arrays for n = 1 .. maxRows. */
    private final FloatBuffer modelIn;
    private final FloatBuffer ffnIn;
    private final NDArray[] modelInRows;
    private final NDArray[] ffnInRows;
    private final FloatBuffer[] cacheViews;
    private final Map<NDArray, FloatBuffer> weightViews = new IdentityHashMap<>();
    private final float[][] residual;
    /** Outputs of the products back to model width (n × d): the output and down projections. */
    private final float[] row;
    private final float[] qkv;
    private final float[] gate;
    private final float[] up;
    private final AttentionScratch scratch;

    public SmallBatchDecoder(CausalLm model, KvCache cache, NDManager parent, int maxRows) {
        if (maxRows < 1) throw new IllegalArgumentException("maxRows must be ≥ 1, got " + maxRows);
        this.model = model;
        this.cache = cache;
        this.c = model.config();
        this.maxRows = Math.min(maxRows, cache.slots());
        this.manager = parent.newSubManager();
        int d = c.dModel();
        ByteBuffer dBytes = direct(this.maxRows * d);
        ByteBuffer fBytes = direct(this.maxRows * c.ffn());
        modelIn = dBytes.asFloatBuffer();
        ffnIn = fBytes.asFloatBuffer();
        modelInRows = new NDArray[this.maxRows + 1];
        ffnInRows = new NDArray[this.maxRows + 1];
        for (int n = 1; n <= this.maxRows; n++) {
            // The engine wraps a direct buffer without copying: what Java writes there, the product reads.
            modelInRows[n] = manager.create(dBytes.duplicate().order(ByteOrder.nativeOrder()).limit(n * d * 4),
                    new Shape(n, d), DataType.FLOAT32);
            ffnInRows[n] = manager.create(fBytes.duplicate().order(ByteOrder.nativeOrder()).limit(n * c.ffn() * 4),
                    new Shape(n, c.ffn()), DataType.FLOAT32);
        }
        cacheViews = new FloatBuffer[c.layers()];
        for (int l = 0; l < c.layers(); l++) cacheViews[l] = cache.view(l);
        residual = new float[this.maxRows][d];
        row = new float[this.maxRows * d];
        qkv = new float[this.maxRows * 3 * d];
        gate = new float[this.maxRows * c.ffn()];
        up = new float[this.maxRows * c.ffn()];
        scratch = new AttentionScratch(cache.length(), c.headSize());
    }

    public int maxRows() {
        return maxRows;
    }

    /**
     * One step for running rows 0 .. n-1 (n ≤ maxRows): {@code tokens[i]} sits at {@code positions[i]};
     * its key and value go into the cache there and it attends to positions 0 .. positions[i]. Returns
     * the next-token logits, row-major (n × vocab).
     */
    public float[] step(int[] tokens, int[] positions) {
        int n = tokens.length;
        if (n < 1 || n > maxRows) throw new IllegalArgumentException(n + " rows outside 1.." + maxRows);
        if (positions.length != n) throw new IllegalArgumentException(positions.length + " positions for " + n + " tokens");
        int d = c.dModel();
        FloatBuffer embedding = view(model.embeddingArray());
        for (int r = 0; r < n; r++) {
            if (positions[r] < 0 || positions[r] >= cache.length()) {
                throw new IllegalArgumentException("position " + positions[r] + " outside the cache length " + cache.length());
            }
            if (tokens[r] < 0 || tokens[r] >= c.vocab()) {
                throw new IllegalArgumentException("token id " + tokens[r] + " outside the vocabulary 0.." + (c.vocab() - 1));
            }
            embedding.get(tokens[r] * d, residual[r], 0, d);
        }
        for (int l = 0; l < c.layers(); l++) {
            DecoderLayer layer = model.layer(l);
            normInto(n, layer.norm1.weight);
            product(n, modelInRows, layer.attention.qkv, qkv);
            attend(n, l, positions);
            product(n, modelInRows, layer.attention.out, row);
            addToResidual(n, row);
            normInto(n, layer.norm2.weight);
            product(n, modelInRows, layer.mlp.gate, gate);
            product(n, modelInRows, layer.mlp.up, up);
            swiGluInto(n);
            product(n, ffnInRows, layer.mlp.down, row);
            addToResidual(n, row);
        }
        normInto(n, model.finalNorm().weight);
        float[] logits = new float[n * c.vocab()];
        try (NDArray out = Linear.linear(modelInRows[n], model.embeddingArray()).head()) {
            out.toByteBuffer(true).asFloatBuffer().get(logits);
        }
        return logits;
    }

    /** RMSNorm of each residual row into the model-width product input. */
    private void normInto(int n, Parameter gain) {
        int d = c.dModel();
        FloatBuffer g = view(gain.getArray());
        float eps = (float) c.normEps();
        for (int r = 0; r < n; r++) {
            float[] x = residual[r];
            float sum = 0f;
            for (int i = 0; i < d; i++) sum += x[i] * x[i];
            float inv = 1f / (float) Math.sqrt(sum / d + eps);
            for (int i = 0; i < d; i++) modelIn.put(r * d + i, x[i] * inv * g.get(i));
        }
    }

    /** One native call: out (n × units) = input rows · weightᵀ. */
    private void product(int n, NDArray[] inputRows, Linear linear, float[] out) {
        NDArray weight = linear.getParameters().get("weight").getArray();
        try (NDArray y = Linear.linear(inputRows[n], weight).head()) {
            y.toByteBuffer(true).asFloatBuffer().get(out, 0, Math.toIntExact(y.size()));
        }
    }

    /**
     * Rotary positions on q (scaled by 1/√dh) and k, the new key and value into the cache, then each
     * head's softmax(q·Kᵀ)·V over the row's positions 0 .. p, written into the model-width input of
     * the output projection. One thread: reading the cache is memory-bound here, and splitting rows
     * over the cores measured no faster.
     */
    private void attend(int n, int layer, int[] positions) {
        AttentionScratch s = scratch;
        int d = c.dModel();
        int dh = c.headSize();
        int half = dh / 2;
        float[] cos = model.rotary().cosTable();
        float[] sin = model.rotary().sinTable();
        FloatBuffer kv = cacheViews[layer];
        for (int r = 0; r < n; r++) {
            int p = positions[r];
            int base = r * 3 * d;
            int table = p * 3 * dh;
            for (int h = 0; h < c.heads(); h++) {
                int q0 = base + h * dh;
                int k0 = base + d + h * dh;
                int v0 = base + 2 * d + h * dh;
                rotate(qkv, q0, cos, sin, table, half);
                rotate(qkv, k0, cos, sin, table + dh, half);
                kv.put(cache.offset(0, r, h, p), qkv, k0, dh);
                kv.put(cache.offset(1, r, h, p), qkv, v0, dh);
                int span = (p + 1) * dh;
                kv.get(cache.offset(0, r, h, 0), s.keys, 0, span);
                kv.get(cache.offset(1, r, h, 0), s.values, 0, span);
                float[] scores = s.scores;
                float max = Float.NEGATIVE_INFINITY;
                for (int j = 0; j <= p; j++) {
                    float e = dot(qkv, q0, s.keys, j * dh, dh);
                    scores[j] = e;
                    if (e > max) max = e;
                }
                float total = 0f;
                for (int j = 0; j <= p; j++) {
                    float e = (float) Math.exp(scores[j] - max);
                    scores[j] = e;
                    total += e;
                }
                float[] acc = s.head;
                Arrays.fill(acc, 0f);
                for (int j = 0; j <= p; j++) {
                    float w = scores[j] / total;
                    int vj = j * dh;
                    for (int i = 0; i < dh; i++) acc[i] += w * s.values[vj + i];
                }
                modelIn.put(r * d + h * dh, acc, 0, dh);
            }
        }
    }

    /** A head's keys and values over the cache length, its scores and its output. */
    private static final class AttentionScratch {
        final float[] keys;
        final float[] values;
        final float[] scores;
        final float[] head;

        AttentionScratch(int length, int headSize) {
            keys = new float[length * headSize];
            values = new float[length * headSize];
            scores = new float[length];
            head = new float[headSize];
        }
    }

    /** x·cos + rotateHalf(x)·sin in place, rotateHalf(x) = (-x[half:], x[:half]). */
    private static void rotate(float[] x, int at, float[] cos, float[] sin, int table, int half) {
        for (int i = 0; i < half; i++) {
            float a = x[at + i];
            float b = x[at + half + i];
            x[at + i] = a * cos[table + i] - b * sin[table + i];
            x[at + half + i] = b * cos[table + half + i] + a * sin[table + half + i];
        }
    }

    private static float dot(float[] a, int aAt, float[] b, int bAt, int length) {
        float s0 = 0f, s1 = 0f, s2 = 0f, s3 = 0f;
        int i = 0;
        for (; i + 3 < length; i += 4) {
            s0 += a[aAt + i] * b[bAt + i];
            s1 += a[aAt + i + 1] * b[bAt + i + 1];
            s2 += a[aAt + i + 2] * b[bAt + i + 2];
            s3 += a[aAt + i + 3] * b[bAt + i + 3];
        }
        for (; i < length; i++) s0 += a[aAt + i] * b[bAt + i];
        return (s0 + s1) + (s2 + s3);
    }

    /** silu(gate)·up into the ffn-width input of the down projection. */
    private void swiGluInto(int n) {
        int width = n * c.ffn();
        for (int i = 0; i < width; i++) {
            float g = gate[i];
            ffnIn.put(i, g / (1f + (float) Math.exp(-g)) * up[i]);
        }
    }

    private void addToResidual(int n, float[] delta) {
        int d = c.dModel();
        for (int r = 0; r < n; r++) {
            float[] x = residual[r];
            for (int i = 0; i < d; i++) x[i] += delta[r * d + i];
        }
    }

    /**
     * A zero-copy view of a weight's memory, kept while the parameter holds the same array (updates in
     * place, such as loading weights or an optimizer step, keep it valid; a replaced array gets a new view).
     */
    private FloatBuffer view(NDArray array) {
        return weightViews.computeIfAbsent(array, a -> a.toByteBuffer(true).asFloatBuffer());
    }

    private static ByteBuffer direct(int floats) {
        return ByteBuffer.allocateDirect(floats * 4).order(ByteOrder.nativeOrder());
    }

    @Override
    public void close() {
        manager.close();
        weightViews.clear();
    }
}
