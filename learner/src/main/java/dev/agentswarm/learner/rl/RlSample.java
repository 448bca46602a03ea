package dev.agentswarm.learner.rl;

import java.util.Arrays;

/**
 * Token ids to learn from, with 1 in {@code trained} where the policy produced the id (its
 * completions) and 0 for the prompt, tool output and the chat frame between turns, which are never
 * trained; each trained id's log-prob under the policy that sampled it (0 elsewhere); and one
 * advantage for all of them. A multi-turn episode whose turns extend each other is one sample.
 */
public record RlSample(int[] ids, byte[] trained, float[] samplerLogprobs, double advantage) {

    public RlSample {
        if (ids.length < 2) throw new IllegalArgumentException("a sample needs a prompt and at least one completion token");
        if (trained.length != ids.length || samplerLogprobs.length != ids.length) {
            throw new IllegalArgumentException("ids, trained marks and sampler log-probs must have one entry per token");
        }
        if (trained[0] != 0) throw new IllegalArgumentException("the first token has nothing before it to be predicted from");
        boolean any = false;
        for (byte b : trained) any |= b != 0;
        if (!any) throw new IllegalArgumentException("a sample needs at least one completion token");
        if (!Double.isFinite(advantage)) throw new IllegalArgumentException("advantage must be finite, got " + advantage);
    }

    /** A prompt and one completion of it. */
    public static RlSample of(int[] prompt, int[] completion, float[] samplerLogprobs, double advantage) {
        if (prompt.length == 0) throw new IllegalArgumentException("a sample needs a prompt");
        if (samplerLogprobs.length != completion.length) {
            throw new IllegalArgumentException("one sampler log-prob per completion token: " + samplerLogprobs.length + " for "
                    + completion.length);
        }
        int n = prompt.length + completion.length;
        int[] ids = Arrays.copyOf(prompt, n);
        System.arraycopy(completion, 0, ids, prompt.length, completion.length);
        byte[] trained = new byte[n];
        Arrays.fill(trained, prompt.length, n, (byte) 1);
        float[] logp = new float[n];
        System.arraycopy(samplerLogprobs, 0, logp, prompt.length, completion.length);
        return new RlSample(ids, trained, logp, advantage);
    }

    public int length() {
        return ids.length;
    }

    public int trainedTokens() {
        int n = 0;
        for (byte b : trained) n += b;
        return n;
    }
}
