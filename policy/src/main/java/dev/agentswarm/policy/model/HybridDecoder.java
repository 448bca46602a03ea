package dev.agentswarm.policy.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.Parameter;
import ai.djl.nn.core.Linear;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * A decode step that keeps libtorch for the work it is fast at and does the glue in Java, on CPU.
 * At decode time a step is not arithmetic-bound: the whole-batch path ({@link CausalLm#decode}) makes
 * ~150 engine calls per step, each with its dispatch, allocation and cache misses, and its products
 * take MKL's slow small-m route. Here:
 *
 * <ul>
 *   <li>the matrix products are one native call each, written {@code W · Xᵀ} over inputs held
 *       feature-major (width, rows): for a few rows MKL runs that form faster than
 *       {@code X · Wᵀ} (its small-m path is slow for the latter);
 *   <li>the SwiGLU stays native between its products (no copies of the wide activations);
 *   <li>norms, rotary positions, the K/V write into the cache and the residuals run in Java on memory
 *       shared with the engine (direct buffers wrapped once as arrays, zero-copy views of the cache
 *       and the weights);
 *   <li>attention over the cache runs in Java for steps of at most {@code javaAttentionRows} rows
 *       (no engine calls at all) and as three batched engine ops over cache views above that, where
 *       libtorch streams the cache faster than a Java loop.
 * </ul>
 *
 * It computes the same function as {@link CausalLm#decode} (a test checks both against the full
 * causal pass) and writes the same {@link KvCache}, so the two can take turns on one batch.
 *
 * <p>Not thread-safe: it owns scratch buffers. One per generator; close it before the cache.
 */
public final class HybridDecoder implements AutoCloseable {

    private static final float MASKED = -1e9f;

    private final CausalLm model;
    private final KvCache cache;
    private final ModelConfig c;
    private final int maxRows;
    private final int javaAttentionRows;
    private final NDManager manager;
    /** Input of the model-width products, feature-major (d, n), wrapped once per row count. */
    private final FloatBuffer modelIn;
    private final NDArray[] modelInRows;
    /** Input of the output projection, feature-major (heads·dh, n): the attention's result. */
    private final FloatBuffer attentionOut;
    private final NDArray[] attentionOutRows;
    /** Queries (n, heads, 1, dh) and the additive mask (n, 1, 1, visible) for engine attention. */
    private final ByteBuffer queryBytes;
    private final ByteBuffer maskBytes;
    private final FloatBuffer[] cacheViews;
    private final Map<NDArray, FloatBuffer> weightViews = new IdentityHashMap<>();
    private final float[][] residual;
    /** The fused projection, row-major (n, projection width), after the transposing copy. */
    private final float[] qkv;
    /** Width of the fused projection: (heads + 2·kvHeads)·dh. */
    private final int projection;
    private final AttentionScratch scratch;

    /**
     * @param maxRows the largest step (bounded by the cache's slots)
     * @param javaAttentionRows steps of at most this many rows attend in Java, larger ones in libtorch
     */
    public HybridDecoder(CausalLm model, KvCache cache, NDManager parent, int maxRows, int javaAttentionRows) {
        if (maxRows < 1) throw new IllegalArgumentException("maxRows must be ≥ 1, got " + maxRows);
        if (javaAttentionRows < 0) throw new IllegalArgumentException("javaAttentionRows must be ≥ 0, got " + javaAttentionRows);
        this.model = model;
        this.cache = cache;
        this.c = model.config();
        this.maxRows = Math.min(maxRows, cache.slots());
        this.javaAttentionRows = javaAttentionRows;
        this.manager = parent.newSubManager();
        int d = c.dModel();
        ByteBuffer dBytes = direct(this.maxRows * d);
        modelIn = dBytes.asFloatBuffer();
        modelInRows = new NDArray[this.maxRows + 1];
        for (int n = 1; n <= this.maxRows; n++) {
            // The engine wraps a direct buffer without copying: what Java writes there, the product reads.
            modelInRows[n] = wrap(manager, dBytes, new Shape(d, n));
        }
        int attentionWidth = c.attentionWidth();
        ByteBuffer outBytes = direct(this.maxRows * attentionWidth);
        attentionOut = outBytes.asFloatBuffer();
        attentionOutRows = new NDArray[this.maxRows + 1];
        for (int n = 1; n <= this.maxRows; n++) attentionOutRows[n] = wrap(manager, outBytes, new Shape(attentionWidth, n));
        queryBytes = direct(this.maxRows * attentionWidth);
        maskBytes = direct(this.maxRows * cache.length());
        cacheViews = new FloatBuffer[c.layers()];
        for (int l = 0; l < c.layers(); l++) cacheViews[l] = cache.view(l);
        residual = new float[this.maxRows][d];
        projection = c.projectionHeads() * c.headSize();
        qkv = new float[this.maxRows * projection];
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
        if (model.adapterActive()) {
            throw new IllegalStateException("the hybrid decoder reads the base weights and would skip the LoRA adapter:"
                    + " merge it (LoraAdapter.mergeAndUnload) or decode with the engine");
        }
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
        }
        for (int r = 0; r < n; r++) embedding.get(tokens[r] * d, residual[r], 0, d);
        try (NDManager step = manager.newSubManager()) {
            KvCache.Step reads = n > javaAttentionRows ? cache.reads(n, maxVisible(positions)) : null;
            NDArray mask = reads != null ? maskOrNull(step, positions, reads.visible()) : null;
            for (int l = 0; l < c.layers(); l++) {
                DecoderLayer layer = model.layer(l);
                normInto(n, layer.norm1.weight);
                copyRowMajor(product(step, layer.attention.qkv, modelInRows[n]), n, qkv);
                if (c.qkvBias()) addBias(n, layer.attention.qkv.getParameters().get("bias"));
                if (c.qkNorm()) normHeads(n, layer.attention.qNorm.weight, layer.attention.kNorm.weight);
                rotateAndStore(n, l, positions);
                NDArray attended = reads == null
                        ? javaAttention(n, l, positions)
                        : engineAttention(step, n, l, reads, mask);
                addToResidual(n, product(step, layer.attention.out, attended));
                normInto(n, layer.norm2.weight);
                NDArray gate = product(step, layer.mlp.gate, modelInRows[n]);
                NDArray up = product(step, layer.mlp.up, modelInRows[n]);
                NDArray hidden = Activation.sigmoid(gate).muli(gate).muli(up); // silu(gate)·up, (ffn, n)
                addToResidual(n, product(step, layer.mlp.down, hidden));
            }
            normInto(n, model.finalNorm().weight);
            NDArray logits = model.headArray().matMul(modelInRows[n]); // (vocab, n)
            logits.attach(step);
            float[] out = new float[n * c.vocab()];
            copyRowMajor(logits, n, out);
            return out;
        }
    }

    /** RMSNorm of each residual row into the feature-major product input. */
    private void normInto(int n, Parameter gain) {
        int d = c.dModel();
        FloatBuffer g = view(gain.getArray());
        float eps = (float) c.normEps();
        for (int r = 0; r < n; r++) {
            float[] x = residual[r];
            float sum = 0f;
            for (int i = 0; i < d; i++) sum += x[i] * x[i];
            float inv = 1f / (float) Math.sqrt(sum / d + eps);
            for (int i = 0; i < d; i++) modelIn.put(i * n + r, x[i] * inv * g.get(i));
        }
    }

    /** Adds the projection's bias (Qwen2) to each row. */
    private void addBias(int n, Parameter bias) {
        FloatBuffer b = view(bias.getArray());
        for (int r = 0; r < n; r++) {
            int base = r * projection;
            for (int j = 0; j < projection; j++) qkv[base + j] += b.get(j);
        }
    }

    /** Qwen3's RMSNorm of each query head and each key head over the head size, in place. */
    private void normHeads(int n, Parameter queryGain, Parameter keyGain) {
        int dh = c.headSize();
        FloatBuffer qg = view(queryGain.getArray());
        FloatBuffer kg = view(keyGain.getArray());
        float eps = (float) c.normEps();
        for (int r = 0; r < n; r++) {
            for (int h = 0; h < c.heads() + c.kvHeads(); h++) {
                int at = r * projection + h * dh;
                FloatBuffer g = h < c.heads() ? qg : kg;
                float sum = 0f;
                for (int i = 0; i < dh; i++) sum += qkv[at + i] * qkv[at + i];
                float inv = 1f / (float) Math.sqrt(sum / dh + eps);
                for (int i = 0; i < dh; i++) qkv[at + i] = qkv[at + i] * inv * g.get(i);
            }
        }
    }

    /** One native call: W (units, width) · input (width, n), attached to the step. */
    private NDArray product(NDManager step, Linear linear, NDArray input) {
        NDArray y = linear.getParameters().get("weight").getArray().matMul(input);
        y.attach(step);
        return y;
    }

    /** Copies a feature-major (width, n) result into row-major (n, width). */
    private static void copyRowMajor(NDArray featureMajor, int n, float[] out) {
        FloatBuffer y = featureMajor.toByteBuffer(true).asFloatBuffer();
        int width = y.remaining() / n;
        if (n == 1) {
            y.get(out, 0, width);
            return;
        }
        for (int j = 0; j < width; j++) {
            for (int r = 0; r < n; r++) out[r * width + j] = y.get(j * n + r);
        }
    }

    /**
     * Rotary positions on q (scaled by 1/√dh) and k in place, then each row's new key and value into
     * the cache at its position.
     */
    private void rotateAndStore(int n, int layer, int[] positions) {
        int dh = c.headSize();
        int half = dh / 2;
        int heads = c.heads();
        int kvHeads = c.kvHeads();
        float[] cos = model.rotary().cosTable();
        float[] sin = model.rotary().sinTable();
        FloatBuffer kv = cacheViews[layer];
        for (int r = 0; r < n; r++) {
            int p = positions[r];
            int base = r * projection;
            int table = p * 3 * dh;
            for (int h = 0; h < heads; h++) rotate(qkv, base + h * dh, cos, sin, table, half);
            for (int h = 0; h < kvHeads; h++) {
                int k0 = base + (heads + h) * dh;
                rotate(qkv, k0, cos, sin, table + dh, half);
                kv.put(cache.offset(0, r, h, p), qkv, k0, dh);
                kv.put(cache.offset(1, r, h, p), qkv, k0 + kvHeads * dh, dh);
            }
        }
    }

    /**
     * Each head's softmax(q·Kᵀ)·V over the row's positions 0 .. p, in Java, into the feature-major
     * input of the output projection. One thread: reading the cache is memory-bound here, and
     * splitting rows over the cores measured no faster.
     */
    private NDArray javaAttention(int n, int layer, int[] positions) {
        AttentionScratch s = scratch;
        int dh = c.headSize();
        int group = c.groupSize();
        FloatBuffer kv = cacheViews[layer];
        for (int r = 0; r < n; r++) {
            int p = positions[r];
            for (int h = 0; h < c.heads(); h++) {
                int q0 = r * projection + h * dh;
                int span = (p + 1) * dh;
                if (h % group == 0) { // a key/value head serves its group's query heads
                    kv.get(cache.offset(0, r, h / group, 0), s.keys, 0, span);
                    kv.get(cache.offset(1, r, h / group, 0), s.values, 0, span);
                }
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
                for (int i = 0; i < dh; i++) attentionOut.put((h * dh + i) * n + r, acc[i]);
            }
        }
        return attentionOutRows[n];
    }

    /**
     * softmax(q·Kᵀ + mask)·V as batched engine ops over the cache's (n, kvHeads, visible, dh) views,
     * each key head's query heads stacked as (n, kvHeads, group, dh); returned feature-major
     * (heads·dh, n) for the output projection (a transposed view, no copy).
     */
    private NDArray engineAttention(NDManager step, int n, int layer, KvCache.Step reads, NDArray mask) {
        int width = c.attentionWidth();
        FloatBuffer q = queryBytes.asFloatBuffer();
        for (int r = 0; r < n; r++) q.put(r * width, qkv, r * projection, width);
        NDArray query = wrap(step, queryBytes, new Shape(n, c.kvHeads(), c.groupSize(), c.headSize()));
        NDArray[] kv = cache.read(step, layer, reads);
        NDArray scores = query.matMul(kv[0].transpose(0, 1, 3, 2));
        if (mask != null) scores = scores.addi(mask);
        return scores.softmax(-1).matMul(kv[1]).reshape(n, width).transpose();
    }

    /** The additive mask hiding positions past each row's own, or null when all rows are at one position. */
    private NDArray maskOrNull(NDManager step, int[] positions, int visible) {
        boolean aligned = true;
        for (int p : positions) aligned &= p == positions[0];
        if (aligned) return null;
        int n = positions.length;
        FloatBuffer m = maskBytes.asFloatBuffer();
        for (int r = 0; r < n; r++) {
            for (int j = 0; j < visible; j++) m.put(r * visible + j, j <= positions[r] ? 0f : MASKED);
        }
        return wrap(step, maskBytes, new Shape(n, 1, 1, visible));
    }

    private static int maxVisible(int[] positions) {
        int visible = 0;
        for (int p : positions) visible = Math.max(visible, p + 1);
        return visible;
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

    /** Adds a feature-major (d, n) product to the residual rows. */
    private void addToResidual(int n, NDArray featureMajor) {
        FloatBuffer y = featureMajor.toByteBuffer(true).asFloatBuffer();
        int d = c.dModel();
        for (int r = 0; r < n; r++) {
            float[] x = residual[r];
            for (int i = 0; i < d; i++) x[i] += y.get(i * n + r);
        }
    }

    /**
     * A zero-copy view of a weight's memory, kept while the parameter holds the same array (updates in
     * place, such as loading weights or an optimizer step, keep it valid; a replaced array gets a new view).
     */
    private FloatBuffer view(NDArray array) {
        return weightViews.computeIfAbsent(array, a -> a.toByteBuffer(true).asFloatBuffer());
    }

    /** The first shape.size() floats of a direct buffer as an engine array (no copy). */
    private static NDArray wrap(NDManager owner, ByteBuffer bytes, Shape shape) {
        ByteBuffer slice = bytes.duplicate().order(ByteOrder.nativeOrder()).limit(Math.toIntExact(shape.size() * 4));
        return owner.create(slice, shape, DataType.FLOAT32);
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
