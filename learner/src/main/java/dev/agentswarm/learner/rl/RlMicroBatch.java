package dev.agentswarm.learner.rl;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.agentswarm.learner.data.Example;
import dev.agentswarm.learner.data.MicroBatch;
import java.util.List;

/**
 * Samples right-padded into one forward pass: the token rows and completion mask of a
 * {@link MicroBatch}, the sampler's log-prob of each completion token at its target position
 * (token t is predicted at position t − 1), and one advantage per row.
 */
public record RlMicroBatch(MicroBatch tokens, float[] samplerLogprobs, float[] advantages) {

    public static RlMicroBatch of(List<RlSample> samples, int padId) {
        List<Example> examples = samples.stream().map(s -> {
            int[] mask = new int[s.length()];
            for (int i = 0; i < mask.length; i++) mask[i] = s.trained()[i];
            return new Example(s.ids(), mask, "rl");
        }).toList();
        MicroBatch tokens = MicroBatch.of(examples, padId);
        int targets = tokens.length() - 1;
        float[] sampler = new float[tokens.rows() * targets];
        float[] advantages = new float[tokens.rows()];
        for (int r = 0; r < samples.size(); r++) {
            RlSample s = samples.get(r);
            for (int t = 1; t < s.length(); t++) sampler[r * targets + t - 1] = s.samplerLogprobs()[t]; // token t is predicted at t − 1
            advantages[r] = (float) s.advantage();
        }
        return new RlMicroBatch(tokens, sampler, advantages);
    }

    public NDArray samplerArray(NDManager m) {
        return m.create(samplerLogprobs, new Shape(tokens.rows(), tokens.length() - 1));
    }

    public NDArray advantagesArray(NDManager m) {
        return m.create(advantages);
    }

    /** Samples cut into micro-batches of at most {@code rows} rows, in order. */
    public static List<RlMicroBatch> split(List<RlSample> samples, int rows, int padId) {
        if (rows < 1) throw new IllegalArgumentException("micro-batch rows must be >= 1, got " + rows);
        java.util.ArrayList<RlMicroBatch> out = new java.util.ArrayList<>();
        for (int i = 0; i < samples.size(); i += rows) out.add(of(samples.subList(i, Math.min(samples.size(), i + rows)), padId));
        return out;
    }
}
