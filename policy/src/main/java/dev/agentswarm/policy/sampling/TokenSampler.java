package dev.agentswarm.policy.sampling;

import dev.agentswarm.core.protocol.SamplingParams;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Picks the next token from a model's logits under temperature, top-k and top-p, and reports its
 * log-probability under the distribution actually sampled from (after temperature and the cuts,
 * renormalised): the number an RL learner needs as the "old" log-prob. Temperature 0 is greedy,
 * a point mass, so its log-prob is 0. Plain Java on one row of logits: for the vocabularies of
 * the embedded presets this is cheaper than another native call. Not thread-safe (scratch arrays).
 */
public final class TokenSampler {

    /** The chosen token and its log-probability under the sampling distribution. */
    public record Choice(int tokenId, float logprob) {}

    private final double temperature;
    private final int topK;
    private final double topP;
    private double[] probs = new double[0];
    private Integer[] order = new Integer[0];

    public TokenSampler(SamplingParams params) {
        this.temperature = params.temperature();
        this.topK = params.topK();
        this.topP = params.topP();
    }

    /** The last {@link #sample}'s token, and whether it was greedy (a point mass), for {@link #top}. */
    private int lastChosen = -1;
    private boolean lastGreedy;

    public Choice sample(float[] logits, SplittableRandom rng) {
        int n = logits.length;
        if (n == 0) throw new IllegalArgumentException("no logits to sample from");
        lastGreedy = temperature == 0;
        if (temperature == 0) {
            lastChosen = argmax(logits);
            return new Choice(lastChosen, 0f);
        }
        ensureCapacity(n);

        // Softmax of logits / T, stable: subtract the max first.
        double max = Double.NEGATIVE_INFINITY;
        for (float l : logits) max = Math.max(max, l);
        double sum = 0;
        for (int i = 0; i < n; i++) {
            double p = Math.exp((logits[i] - max) / temperature);
            probs[i] = p;
            sum += p;
        }
        for (int i = 0; i < n; i++) probs[i] /= sum;

        boolean cutK = topK > 0 && topK < n;
        boolean cutP = topP < 1.0;
        if (cutK || cutP) {
            for (int i = 0; i < n; i++) order[i] = i;
            Arrays.sort(order, 0, n, (a, b) -> Double.compare(probs[b], probs[a]) != 0
                    ? Double.compare(probs[b], probs[a]) : Integer.compare(a, b));
            int keep = cutK ? topK : n;
            if (cutP) {
                double cumulative = 0;
                int nucleus = 0;
                // The smallest prefix whose mass reaches top-p; at least one token always survives.
                while (nucleus < keep) {
                    cumulative += probs[order[nucleus]];
                    nucleus++;
                    if (cumulative >= topP) break;
                }
                keep = nucleus;
            }
            double kept = 0;
            for (int r = 0; r < keep; r++) kept += probs[order[r]];
            for (int r = keep; r < n; r++) probs[order[r]] = 0;
            for (int r = 0; r < keep; r++) probs[order[r]] /= kept;
        }

        double u = rng.nextDouble();
        double cumulative = 0;
        int chosen = -1;
        for (int i = 0; i < n; i++) {
            if (probs[i] == 0) continue;
            chosen = i;
            cumulative += probs[i];
            if (u < cumulative) break;
        }
        lastChosen = chosen;
        lastVocab = n;
        return new Choice(chosen, (float) Math.log(probs[chosen]));
    }

    private int lastVocab;

    /**
     * The {@code k} most likely tokens of the distribution the last {@link #sample} drew from (the
     * one its log-prob is under), most likely first, into {@code ids} and {@code logprobs}; returns how
     * many there are: fewer than {@code k} when the cuts left fewer, 1 for a greedy pick (its token, at 0).
     */
    public int top(int k, int[] ids, float[] logprobs) {
        if (lastChosen < 0) throw new IllegalStateException("nothing sampled yet");
        if (k <= 0) return 0;
        if (lastGreedy) {
            ids[0] = lastChosen;
            logprobs[0] = 0f;
            return 1;
        }
        int found = 0;
        for (int i = 0; i < lastVocab; i++) {
            double p = probs[i];
            if (p == 0) continue;
            // Insertion into the sorted top-k (k is small: OpenAI allows 20); ties keep the lower id first.
            int at = found;
            while (at > 0 && probs[ids[at - 1]] < p) at--;
            if (at >= k) continue;
            int last = Math.min(found, k - 1);
            for (int j = last; j > at; j--) ids[j] = ids[j - 1];
            ids[at] = i;
            if (found < k) found++;
        }
        for (int j = 0; j < found; j++) logprobs[j] = (float) Math.log(probs[ids[j]]);
        return found;
    }

    static int argmax(float[] logits) {
        int best = 0;
        for (int i = 1; i < logits.length; i++) if (logits[i] > logits[best]) best = i;
        return best;
    }

    private void ensureCapacity(int n) {
        if (probs.length < n) {
            probs = new double[n];
            order = new Integer[n];
        }
    }
}
