package dev.agentswarm.policy.embedded;

import java.util.Arrays;

/**
 * The most likely tokens at each generated position, as OpenAI's {@code top_logprobs} asks: for
 * position {@code i}, {@code ids[i]} and their {@code logprobs[i]}, most likely first, under the
 * distribution the token at {@code i} was sampled from (after temperature, top-k and top-p, as the
 * sampled token's own log-prob): tokens the cuts removed are not among them, and a greedy position
 * has only its token, at log-prob 0.
 */
public record TopLogprobs(int[][] ids, float[][] logprobs) {

    public TopLogprobs {
        if (ids.length != logprobs.length) throw new IllegalArgumentException(ids.length + " positions of ids, " + logprobs.length + " of log-probs");
    }

    /** Positions {@code from} .. {@code to} - 1. */
    public TopLogprobs slice(int from, int to) {
        return new TopLogprobs(Arrays.copyOfRange(ids, from, to), Arrays.copyOfRange(logprobs, from, to));
    }

    public int positions() {
        return ids.length;
    }
}
