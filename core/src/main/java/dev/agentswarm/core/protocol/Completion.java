package dev.agentswarm.core.protocol;

import dev.agentswarm.core.CborSerializable;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * What a policy answered: the text, native tool calls (OpenAI-style servers), the exact token
 * ids and their log-probs under the distribution actually sampled (empty when the server does
 * not return them), why it stopped, the policy versions that produced it and token counts.
 * {@code policyVersion} is the version of the first token (the oldest: what staleness is judged
 * by); {@code lastPolicyVersion} that of the last, newer when weights were swapped mid-generation.
 * {@code promptIds} are the ids the policy conditioned on, when it knows them (the embedded model;
 * empty for servers that do not say), so a learner trains on the prompt exactly as it was.
 */
public record Completion(String text, List<ToolCall> toolCalls, int[] tokenIds, float[] logprobs,
                         FinishReason finishReason, long policyVersion, int promptTokens, int completionTokens,
                         long lastPolicyVersion, int[] promptIds)
        implements CborSerializable {

    private static final int[] NO_IDS = new int[0];
    private static final float[] NO_LOGPROBS = new float[0];

    public Completion {
        text = text == null ? "" : text;
        toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
        tokenIds = tokenIds == null ? NO_IDS : tokenIds;
        logprobs = logprobs == null ? NO_LOGPROBS : logprobs;
        finishReason = finishReason == null ? FinishReason.STOP : finishReason;
        if (lastPolicyVersion < policyVersion) lastPolicyVersion = policyVersion;
        promptIds = promptIds == null ? NO_IDS : promptIds;
    }

    /** A completion whose prompt ids are not known. */
    public Completion(String text, List<ToolCall> toolCalls, int[] tokenIds, float[] logprobs, FinishReason finishReason,
                      long policyVersion, int promptTokens, int completionTokens, long lastPolicyVersion) {
        this(text, toolCalls, tokenIds, logprobs, finishReason, policyVersion, promptTokens, completionTokens, lastPolicyVersion, null);
    }

    /** A completion produced by one policy version throughout. */
    public Completion(String text, List<ToolCall> toolCalls, int[] tokenIds, float[] logprobs, FinishReason finishReason,
                      long policyVersion, int promptTokens, int completionTokens) {
        this(text, toolCalls, tokenIds, logprobs, finishReason, policyVersion, promptTokens, completionTokens,
                policyVersion);
    }

    /** A text-only completion, as scripted policies produce. */
    public static Completion ofText(String text, int promptTokens, int completionTokens) {
        return new Completion(text, List.of(), null, null, FinishReason.STOP, 0, promptTokens, completionTokens);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Completion c && text.equals(c.text) && toolCalls.equals(c.toolCalls)
                && Arrays.equals(tokenIds, c.tokenIds) && Arrays.equals(logprobs, c.logprobs)
                && finishReason == c.finishReason && policyVersion == c.policyVersion
                && lastPolicyVersion == c.lastPolicyVersion
                && promptTokens == c.promptTokens && completionTokens == c.completionTokens
                && Arrays.equals(promptIds, c.promptIds);
    }

    @Override
    public int hashCode() {
        return Objects.hash(text, toolCalls, Arrays.hashCode(tokenIds), finishReason, policyVersion);
    }

    @Override
    public String toString() {
        return "Completion[text=" + text + ", toolCalls=" + toolCalls + ", tokens=" + tokenIds.length
                + ", finish=" + finishReason + ", version=" + policyVersion
                + (lastPolicyVersion != policyVersion ? ".." + lastPolicyVersion : "") + "]";
    }
}
