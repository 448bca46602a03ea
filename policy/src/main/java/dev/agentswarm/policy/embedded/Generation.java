package dev.agentswarm.policy.embedded;

import dev.agentswarm.core.protocol.FinishReason;

/**
 * A finished sequence: the generated token ids (an ending stop token included: the learner must see
 * it), each one's log-prob under the distribution it was sampled from, the text (stop token and stop
 * string excluded), why it ended, and the oldest and newest policy versions that produced it (they
 * differ when weights were swapped mid-sequence), and each position's most likely tokens when the
 * request asked for them ({@code top}, else null).
 */
public record Generation(long id, int[] tokens, float[] logprobs, String text, FinishReason finishReason,
                         long firstVersion, long lastVersion, int promptTokens, long queuedNanos, long generatingNanos,
                         TopLogprobs top) {

    public Generation(long id, int[] tokens, float[] logprobs, String text, FinishReason finishReason, long firstVersion,
                      long lastVersion, int promptTokens, long queuedNanos, long generatingNanos) {
        this(id, tokens, logprobs, text, finishReason, firstVersion, lastVersion, promptTokens, queuedNanos, generatingNanos, null);
    }
}
