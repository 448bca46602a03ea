package dev.agentswarm.policy.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;

/**
 * Preallocated keys and values of every layer, shaped (slots, heads, length, dh). A slot holds one
 * sequence. The generation loop keeps its running sequences in slots 0 .. n-1 (it moves the last
 * one into a freed slot), so a decode step reads the prefix view {@code [:n, :, :positions]} and
 * copies nothing. Writes are in place: a prefill fills a block of new slots from position 0, a
 * decode step writes one position per row.
 */
public final class KvCache implements AutoCloseable {

    private final NDArray[] keys;
    private final NDArray[] values;
    private final int slots;
    private final int length;

    public KvCache(NDManager manager, ModelConfig config, int slots, int length) {
        if (slots <= 0) throw new IllegalArgumentException("slots must be > 0, got " + slots);
        if (length <= 0 || length > config.context()) {
            throw new IllegalArgumentException("cache length must be in 1.." + config.context() + ", got " + length);
        }
        this.slots = slots;
        this.length = length;
        keys = new NDArray[config.layers()];
        values = new NDArray[config.layers()];
        Shape shape = new Shape(slots, config.heads(), length, config.headSize());
        for (int l = 0; l < config.layers(); l++) {
            keys[l] = manager.zeros(shape);
            values[l] = manager.zeros(shape);
        }
    }

    public int slots() {
        return slots;
    }

    public int length() {
        return length;
    }

    /** Bytes held natively by the cache. */
    public long bytes() {
        long perArray = keys[0].getShape().size() * 4L;
        return perArray * 2L * keys.length;
    }

    /** Writes (rows, heads, t, dh) keys and values into slots [firstSlot, firstSlot + rows), positions [0, t). */
    void writeBlock(int layer, int firstSlot, NDArray k, NDArray v) {
        long rows = k.getShape().get(0);
        long t = k.getShape().get(2);
        checkSlots(firstSlot, rows);
        if (t > length) throw new IllegalArgumentException("prefill of " + t + " positions exceeds the cache length " + length);
        NDIndex where = new NDIndex("{}:{}, :, :{}", firstSlot, firstSlot + rows, t);
        keys[layer].set(where, k);
        values[layer].set(where, v);
    }

    /** Writes one (rows, heads, 1, dh) key and value per running row 0 .. rows-1, each at its own position. */
    void writeStep(int layer, NDArray rowIndex, NDArray positions, NDArray k, NDArray v) {
        NDIndex where = new NDIndex("{}, :, {}", rowIndex, positions);
        keys[layer].set(where, k.squeeze(2));
        values[layer].set(where, v.squeeze(2));
    }

    /**
     * Views of the keys and values of running rows 0 .. rows-1 over positions 0 .. visible-1,
     * attached to {@code step} (a view made by the cache's own manager would outlive the step).
     */
    NDArray[] read(NDManager step, int layer, int rows, int visible) {
        checkSlots(0, rows);
        NDIndex prefix = new NDIndex(":{}, :, :{}", rows, visible);
        return new NDArray[] {keys[layer].get(step, prefix), values[layer].get(step, prefix)};
    }

    /** Copies slot {@code from} over slot {@code to} (all layers), to keep running rows contiguous. */
    public void moveSlot(int from, int to) {
        if (from == to) return;
        checkSlots(from, 1);
        checkSlots(to, 1);
        NDIndex source = new NDIndex("{}", from);
        NDIndex target = new NDIndex("{}", to);
        try (NDManager scratch = keys[0].getManager().newSubManager()) {
            for (int l = 0; l < keys.length; l++) {
                keys[l].set(target, keys[l].get(scratch, source));
                values[l].set(target, values[l].get(scratch, source));
            }
        }
    }

    private void checkSlots(long first, long rows) {
        if (first < 0 || first + rows > slots) {
            throw new IllegalArgumentException("slots " + first + ".." + (first + rows - 1) + " outside 0.." + (slots - 1));
        }
    }

    @Override
    public void close() {
        for (int l = 0; l < keys.length; l++) {
            keys[l].close();
            values[l].close();
        }
    }
}
