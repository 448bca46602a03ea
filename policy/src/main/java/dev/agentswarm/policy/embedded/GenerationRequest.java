package dev.agentswarm.policy.embedded;

import dev.agentswarm.core.protocol.SamplingParams;
import java.util.Objects;

/**
 * One sequence to generate: the prompt's token ids, how to sample, and the token ids that end it
 * (for ChatML, {@code <|im_end|>} and {@code <|endoftext|>}). Stop strings come from the sampling
 * parameters and are matched on the decoded text.
 */
public record GenerationRequest(long id, int[] prompt, SamplingParams sampling, int[] stopTokenIds) {

    public GenerationRequest {
        Objects.requireNonNull(prompt, "prompt");
        if (prompt.length == 0) throw new IllegalArgumentException("request " + id + " has an empty prompt");
        sampling = sampling == null ? SamplingParams.DEFAULT : sampling;
        stopTokenIds = stopTokenIds == null ? new int[0] : stopTokenIds;
    }
}
