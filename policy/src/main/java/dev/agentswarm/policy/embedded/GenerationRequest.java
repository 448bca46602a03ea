package dev.agentswarm.policy.embedded;

import dev.agentswarm.core.protocol.SamplingParams;
import java.util.Objects;

/**
 * One sequence to generate: the prompt's token ids, how to sample, and the token ids that end it
 * (for ChatML, {@code <|im_end|>} and {@code <|endoftext|>}). Stop strings come from the sampling
 * parameters and are matched on the decoded text. {@code topLogprobs} &gt; 0 keeps that many most
 * likely tokens of every position ({@link TopLogprobs}).
 */
public record GenerationRequest(long id, int[] prompt, SamplingParams sampling, int[] stopTokenIds, int topLogprobs) {

    public GenerationRequest(long id, int[] prompt, SamplingParams sampling, int[] stopTokenIds) {
        this(id, prompt, sampling, stopTokenIds, 0);
    }

    public GenerationRequest {
        if (topLogprobs < 0) throw new IllegalArgumentException("request " + id + " asks for " + topLogprobs + " top log-probs");
        Objects.requireNonNull(prompt, "prompt");
        if (prompt.length == 0) throw new IllegalArgumentException("request " + id + " has an empty prompt");
        sampling = sampling == null ? SamplingParams.DEFAULT : sampling;
        stopTokenIds = stopTokenIds == null ? new int[0] : stopTokenIds;
    }
}
