package dev.agentswarm.learner.data;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;

/**
 * {@code rows} examples right-padded to {@code length} tokens: ids (rows × length) and the loss mask
 * shifted onto targets, (rows × length-1), where {@code targetMask[r][t]} = 1 when token t+1 of row r is
 * trained. {@code trainedTokens} is the mask's sum, known on the host so that the loss of an
 * accumulated batch can be normalised without a sync.
 */
public record MicroBatch(long[] ids, float[] targetMask, int rows, int length, int trainedTokens) {

    public static MicroBatch of(java.util.List<Example> examples, int padId) {
        int rows = examples.size();
        int length = 2;
        for (Example e : examples) length = Math.max(length, e.length());
        long[] ids = new long[rows * length];
        float[] mask = new float[rows * (length - 1)];
        java.util.Arrays.fill(ids, padId);
        int trained = 0;
        for (int r = 0; r < rows; r++) {
            Example e = examples.get(r);
            for (int t = 0; t < e.length(); t++) ids[r * length + t] = e.ids()[t];
            for (int t = 1; t < e.length(); t++) {
                mask[r * (length - 1) + t - 1] = e.lossMask()[t];
                trained += e.lossMask()[t];
            }
        }
        return new MicroBatch(ids, mask, rows, length, trained);
    }

    public NDArray idsArray(NDManager manager) {
        return manager.create(ids, new Shape(rows, length));
    }

    public NDArray maskArray(NDManager manager) {
        return manager.create(targetMask, new Shape(rows, length - 1));
    }

    public int tokens() {
        return rows * length;
    }
}
