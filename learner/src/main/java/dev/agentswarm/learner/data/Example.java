package dev.agentswarm.learner.data;

/**
 * One rendered training conversation: token ids and, per id, 1 where the model is trained to
 * produce it; {@code source} is the {@code file:line} it came from.
 */
public record Example(int[] ids, int[] lossMask, String source) {
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
