package dev.agentswarm.learner.data;

/**
 * One rendered training conversation: token ids and, per id, 1 where the model is trained to
 * produce it; {@code source} is the {@code file:line} it came from.
 */
public record Example(int[] ids, int[] lossMask, String source) {

    /** A prompt followed by a completion, only the completion trained. */
    public static Example completion(int[] prompt, int[] completion, String source) {
        int[] ids = new int[prompt.length + completion.length];
        int[] mask = new int[ids.length];
        System.arraycopy(prompt, 0, ids, 0, prompt.length);
        System.arraycopy(completion, 0, ids, prompt.length, completion.length);
        java.util.Arrays.fill(mask, prompt.length, ids.length, 1);
        return new Example(ids, mask, source);
    }
    public int length() {
        return ids.length;
    }

    /** Trained target positions: the loss mask of ids[1..], as the loss sees it. */
    public int trainedTargets() {
        int n = 0;
        for (int i = 1; i < lossMask.length; i++) n += lossMask[i];
        return n;
    }
}
