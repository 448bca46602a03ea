package dev.agentswarm.learner.rl;

/**
 * One completion to learn from: the exact prompt ids it was sampled after, the sampled ids (a final
 * stop token included), each one's log-prob under the policy that sampled it, and its advantage.
 * Only the completion is trained; the prompt (with any tool output in it) never is.
 */
public record RlSample(int[] prompt, int[] completion, float[] samplerLogprobs, double advantage) {

    public RlSample {
        if (prompt.length == 0) throw new IllegalArgumentException("a sample needs a prompt");
        if (completion.length == 0) throw new IllegalArgumentException("a sample needs at least one completion token");
        if (samplerLogprobs.length != completion.length) {
            throw new IllegalArgumentException("one sampler log-prob per completion token: " + samplerLogprobs.length + " for "
                    + completion.length);
        }
        if (!Double.isFinite(advantage)) throw new IllegalArgumentException("advantage must be finite, got " + advantage);
    }

    public int length() {
        return prompt.length + completion.length;
    }
}
