package dev.agentswarm.learner.data;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Deals examples into micro-batches in a shuffled order that depends only on the seed and the
 * epoch, so a run resumed from a {@link DataCursor} sees exactly the examples it would have seen.
 * A micro-batch that reaches the end of an epoch is completed from the next epoch's order.
 */
public final class Batcher {

    /** A micro-batch and the cursor after it. */
    public record Next(MicroBatch batch, DataCursor cursor) {}

    private final List<Example> examples;
    private final int microBatch;
    private final long seed;
    private final int padId;
    private int cachedEpoch = -1;
    private int[] cachedOrder;

    public Batcher(List<Example> examples, int microBatch, long seed, int padId) {
        if (examples.isEmpty()) throw new IllegalArgumentException("no examples to batch");
        if (microBatch < 1) throw new IllegalArgumentException("micro-batch must be ≥ 1, got " + microBatch);
        this.examples = List.copyOf(examples);
        this.microBatch = microBatch;
        this.seed = seed;
        this.padId = padId;
    }

    public int size() {
        return examples.size();
    }

    /** The order of epoch {@code epoch}: a Fisher–Yates shuffle seeded by (seed, epoch) alone. */
    public int[] order(int epoch) {
        if (epoch != cachedEpoch) {
            int[] order = new int[examples.size()];
            for (int i = 0; i < order.length; i++) order[i] = i;
            SplittableRandom rng = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + epoch);
            for (int i = order.length - 1; i > 0; i--) {
                int j = rng.nextInt(i + 1);
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
            cachedOrder = order;
            cachedEpoch = epoch;
        }
        return cachedOrder;
    }

    public Next next(DataCursor cursor) {
        List<Example> rows = new ArrayList<>(microBatch);
        int epoch = cursor.epoch(), index = cursor.index();
        if (index > examples.size()) throw new IllegalArgumentException("cursor index " + index + " beyond " + examples.size() + " examples");
        while (rows.size() < microBatch) {
            if (index == examples.size()) {
                epoch++;
                index = 0;
            }
            rows.add(examples.get(order(epoch)[index++]));
        }
        return new Next(MicroBatch.of(rows, padId), new DataCursor(epoch, index));
    }

    /** Micro-batches of {@code examples} in file order (for evaluation), the last one possibly smaller. */
    public static List<MicroBatch> inOrder(List<Example> examples, int microBatch, int padId) {
        List<MicroBatch> out = new ArrayList<>();
        for (int i = 0; i < examples.size(); i += microBatch) {
            out.add(MicroBatch.of(examples.subList(i, Math.min(examples.size(), i + microBatch)), padId));
        }
        return out;
    }
}
