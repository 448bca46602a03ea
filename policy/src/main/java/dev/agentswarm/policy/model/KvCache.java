package dev.agentswarm.policy.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.nio.FloatBuffer;

/**
 * Preallocated keys and values, one array per layer shaped (2, slots, kvHeads, length, dh): index 0
 * holds keys, 1 values, so one write per layer stores both. A slot holds one sequence. The
 * generation loop keeps its running sequences in slots 0 .. n-1 (it moves the last one into a freed
 * slot), so a decode step reads the prefix views {@code [k|v, :n, :, :visible]} and copies nothing.
 * Writes are in place: a prefill fills a block of new slots from position 0, a decode step writes one
 * position per row.
 */
public final class KvCache implements AutoCloseable {

    /**
     * Where one decode step writes and reads, built once per step and shared by every layer: the
     * write puts each row's (2, heads, dh) at its own position; the reads are the running rows over
     * positions 0 .. visible-1. A step made by {@link #reads} has no write index: its writes go
     * through a {@link #view}.
     */
    record Step(NDIndex write, NDIndex readKeys, NDIndex readValues, int rows, int visible) {}

    private final NDArray[] kv;
    private final int slots;
    private final int length;
    private final int heads;
    private final int headSize;

    public KvCache(NDManager manager, ModelConfig config, int slots, int length) {
        if (slots <= 0) throw new IllegalArgumentException("slots must be > 0, got " + slots);
        if (length <= 0 || length > config.context()) {
            throw new IllegalArgumentException("cache length must be in 1.." + config.context() + ", got " + length);
        }
        if (2L * slots * config.kvHeads() * length * config.headSize() * 4L > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a KV cache of " + slots + " slots × " + length + " positions exceeds 2 GiB per layer;"
                    + " use fewer slots (max-batch)");
        }
        this.slots = slots;
        this.length = length;
        this.heads = config.kvHeads();
        this.headSize = config.headSize();
        kv = new NDArray[config.layers()];
        Shape shape = new Shape(2, slots, config.kvHeads(), length, config.headSize());
        for (int l = 0; l < config.layers(); l++) kv[l] = manager.zeros(shape);
    }

    public int slots() {
        return slots;
    }

    public int length() {
        return length;
    }

    /** Bytes held natively by the cache. */
    public long bytes() {
        return kv[0].getShape().size() * 4L * kv.length;
    }

    /**
     * The indices of a decode step for running rows 0 .. rows-1 at {@code positions} (an INT64 vector
     * attached to the step's manager): writes go to (row, position), reads cover 0 .. visible-1.
     */
    Step step(NDManager step, NDArray positions, int visible) {
        int rows = (int) positions.getShape().get(0);
        checkSlots(0, rows);
        NDArray rowIndex = step.arange(0L, (long) rows, 1L, DataType.INT64);
        // Two array indices split by a slice: the indexed shape is (rows, 2, kvHeads, dh), numpy's rule.
        NDIndex write = new NDIndex(":, {}, :, {}", rowIndex, positions);
        return new Step(write, new NDIndex("0, :{}, :, :{}", rows, visible), new NDIndex("1, :{}, :, :{}", rows, visible),
                rows, visible);
    }

    /**
     * Reads only, for a step whose writes go through a {@link #view}: running rows 0 .. rows-1 over
     * positions 0 .. visible-1.
     */
    Step reads(int rows, int visible) {
        checkSlots(0, rows);
        if (visible < 1 || visible > length) throw new IllegalArgumentException("visible " + visible + " outside 1.." + length);
        return new Step(null, new NDIndex("0, :{}, :, :{}", rows, visible), new NDIndex("1, :{}, :, :{}", rows, visible),
                rows, visible);
    }

    /** Writes keys and values (2, rows, kvHeads, t, dh) into slots [firstSlot, firstSlot + rows), positions [0, t). */
    void writeBlock(int layer, int firstSlot, NDArray keysValues) {
        long rows = keysValues.getShape().get(1);
        long t = keysValues.getShape().get(3);
        checkSlots(firstSlot, rows);
        if (t > length) throw new IllegalArgumentException("prefill of " + t + " positions exceeds the cache length " + length);
        kv[layer].set(new NDIndex(":, {}:{}, :, :{}", firstSlot, firstSlot + rows, t), keysValues);
    }

    /** Writes one (rows, 2, kvHeads, dh) key and value per running row, each at its own position. */
    void writeStep(int layer, Step step, NDArray keysValues) {
        kv[layer].set(step.write(), keysValues);
    }

    /**
     * Views (rows, kvHeads, visible, dh) of the step's keys and values, attached to {@code manager} (a
     * view made by the cache's own manager would outlive the step).
     */
    NDArray[] read(NDManager manager, int layer, Step step) {
        return new NDArray[] {kv[layer].get(manager, step.readKeys()), kv[layer].get(manager, step.readValues())};
    }

    /**
     * A zero-copy view of one layer's keys and values, laid out as {@link #offset} says, for code that
     * reads and writes the cache from Java. Valid while the cache is open.
     */
    FloatBuffer view(int layer) {
        return kv[layer].toByteBuffer(true).asFloatBuffer();
    }

    /** Where (keys 0 | values 1, slot, head, position, 0) sits in a {@link #view}. */
    int offset(int keysOrValues, int slot, int head, int position) {
        return (((keysOrValues * slots + slot) * heads + head) * length + position) * headSize;
    }

    /** Copies slot {@code from} over slot {@code to} (all layers), to keep running rows contiguous. */
    public void moveSlot(int from, int to) {
        if (from == to) return;
        checkSlots(from, 1);
        checkSlots(to, 1);
        NDIndex source = new NDIndex(":, {}", from);
        NDIndex target = new NDIndex(":, {}", to);
        try (NDManager scratch = kv[0].getManager().newSubManager()) {
            for (NDArray layer : kv) layer.set(target, layer.get(scratch, source));
        }
    }

    private void checkSlots(long first, long rows) {
        if (first < 0 || first + rows > slots) {
            throw new IllegalArgumentException("slots " + first + ".." + (first + rows - 1) + " outside 0.." + (slots - 1));
        }
    }

    @Override
    public void close() {
        for (NDArray layer : kv) layer.close();
    }
}
