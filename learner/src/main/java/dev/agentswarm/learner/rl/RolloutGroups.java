package dev.agentswarm.learner.rl;

import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
import dev.agentswarm.core.reward.ShapingRewards;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns finished groups (the G trajectories of one task) into GRPO samples: each trajectory's
 * reward, less DAPO's overlong penalty when a turn ran into the buffer before the completion
 * limit, gives group-relative advantages; every assistant turn with sampled tokens is trained with
 * its trajectory's advantage. Turns whose prompt extends the episode's tokens so far (the usual
 * case: the previous prompt, completion and tool output, rendered again) share one sample, so an
 * episode costs one forward instead of one per turn; a turn that does not (a compressed context, a
 * re-tokenisation that differs from the sampled ids) starts a new sample. A group whose rewards are all equal teaches nothing
 * and is dropped when dynamic sampling is on; a turn cut at the completion limit is left out when
 * {@code mask-truncated-completions} is on (it still counted in its group's statistics).
 *
 * <p>A group holding a trajectory that is not the policy's answer — one that failed for its
 * infrastructure, or one never scored — is dropped whole: its 0 would be a fabricated reward, giving
 * the policy's earlier turns a negative advantage and inflating the group mates'. The coordinator runs
 * such episodes again before a group is complete, so this is the learner's own guard.
 */
public final class RolloutGroups {

    /**
     * @param maxCompletionTokens the sampling limit per turn (max-tokens), where overlong turns are cut
     * @param overlongBuffer tokens before that limit where the penalty ramps (DAPO); 0 = no penalty
     */
    public record Settings(GroupAdvantages.Scale scale, boolean maskTruncated, boolean dynamicSampling, int maxCompletionTokens,
                           int overlongBuffer, double overlongPenalty) {
        public Settings {
            if (maxCompletionTokens < 1) throw new IllegalArgumentException("max completion tokens must be >= 1");
            if (overlongBuffer < 0 || overlongBuffer >= maxCompletionTokens) {
                throw new IllegalArgumentException("overlong-buffer-len must be in [0, max-tokens), got " + overlongBuffer);
            }
        }
    }

    /**
     * The samples of the kept groups and what was left out: groups dropped as uninformative
     * ({@code groupsDropped}) and as holding a trajectory that is not the policy's answer ({@code groupsUnscored}).
     */
    public record Batch(List<RlSample> samples, int groupsKept, int groupsDropped, int turnsMasked, double meanReward,
                        int groupsUnscored) {}

    private final Settings settings;
    private final TurnPrompts prompts;

    public RolloutGroups(Settings settings, TurnPrompts prompts) {
        this.settings = settings;
        this.prompts = prompts;
    }

    /** Whether {@code t} may be trained on: the policy's own answer or failure, with a reward. */
    public static boolean trainable(Trajectory t) {
        return t.infraFailure() == null && t.reward() != null;
    }

    /** The reward a trajectory is trained on: its total less the overlong penalty; only for a {@link #trainable} one. */
    public double shapedReward(Trajectory t) {
        if (!trainable(t)) {
            throw new IllegalArgumentException("episode " + t.episodeId() + " has no reward to train on"
                    + (t.infraFailure() != null ? " (it failed for its infrastructure: " + t.infraFailure().label() + ")" : ""));
        }
        double r = t.reward().total();
        if (settings.overlongBuffer() == 0) return r;
        int longest = 0;
        for (Turn turn : t.assistantTurns()) longest = Math.max(longest, turn.tokenIds().length);
        return r + ShapingRewards.overlongPenalty(longest, settings.maxCompletionTokens(), settings.overlongBuffer(),
                settings.overlongPenalty());
    }

    /** An episode's tokens so far, with what is trained and the sampler's log-probs. */
    private static final class Row {
        private int[] ids = new int[256];
        private byte[] trained = new byte[256];
        private float[] logp = new float[256];
        private int size;

        int size() {
            return size;
        }

        boolean isPrefixOf(int[] prompt) {
            if (prompt.length < size) return false;
            for (int j = 0; j < size; j++) if (prompt[j] != ids[j]) return false;
            return true;
        }

        /** Appends {@code src[from, to)}; {@code logprobs} (aligned with src) may be null for untrained ids. */
        void add(int[] src, int from, int to, float[] logprobs, int mark) {
            int n = to - from;
            if (size + n > ids.length) {
                int cap = Math.max(ids.length * 2, size + n);
                ids = java.util.Arrays.copyOf(ids, cap);
                trained = java.util.Arrays.copyOf(trained, cap);
                logp = java.util.Arrays.copyOf(logp, cap);
            }
            System.arraycopy(src, from, ids, size, n);
            java.util.Arrays.fill(trained, size, size + n, (byte) mark);
            if (logprobs != null) System.arraycopy(logprobs, from, logp, size, n);
            size += n;
        }

        /** Adds the row as a sample, unless nothing in it is trained (its only turns were masked). */
        void addTo(List<RlSample> out, double advantage) {
            for (int j = 0; j < size; j++) {
                if (trained[j] != 0) {
                    out.add(new RlSample(java.util.Arrays.copyOf(ids, size), java.util.Arrays.copyOf(trained, size),
                            java.util.Arrays.copyOf(logp, size), advantage));
                    return;
                }
            }
        }
    }

    public Batch samples(List<List<Trajectory>> groups) {
        List<List<Trajectory>> kept = new ArrayList<>();
        List<double[]> rewards = new ArrayList<>();
        int dropped = 0;
        int unscored = 0;
        double sum = 0;
        int n = 0;
        for (List<Trajectory> g : groups) {
            if (!g.stream().allMatch(RolloutGroups::trainable)) {
                unscored++;
                continue;
            }
            double[] r = g.stream().mapToDouble(this::shapedReward).toArray();
            for (double x : r) sum += x;
            n += r.length;
            if (settings.dynamicSampling() && (r.length < 2 || GroupAdvantages.zeroVariance(r))) {
                dropped++;
                continue;
            }
            kept.add(g);
            rewards.add(r);
        }
        double[][] adv = GroupAdvantages.compute(rewards.toArray(double[][]::new), settings.scale());
        List<RlSample> out = new ArrayList<>();
        int masked = 0;
        for (int g = 0; g < kept.size(); g++) {
            for (int i = 0; i < kept.get(g).size(); i++) {
                Trajectory t = kept.get(g).get(i);
                List<int[]> turnPrompts = prompts.of(t);
                Row row = null;
                int k = 0;
                for (Turn turn : t.turns()) {
                    if (!turn.isAssistant()) continue;
                    int[] prompt = turnPrompts.get(k++);
                    if (turn.tokenIds().length == 0) continue; // a policy that returned no ids (a remote one) trains nothing
                    if (turn.logprobs().length != turn.tokenIds().length) {
                        throw new IllegalArgumentException("episode " + t.episodeId() + ", turn " + turn.index() + ": "
                                + turn.logprobs().length + " log-probs for " + turn.tokenIds().length + " tokens");
                    }
                    boolean truncated = settings.maskTruncated() && turn.finishReason() == FinishReason.LENGTH;
                    if (truncated) masked++;
                    // A turn whose prompt extends the row so far joins it: one forward for the whole episode.
                    if (row == null || !row.isPrefixOf(prompt)) {
                        if (row != null) row.addTo(out, adv[g][i]);
                        row = new Row();
                    }
                    row.add(prompt, row.size(), prompt.length, null, 0);
                    row.add(turn.tokenIds(), 0, turn.tokenIds().length, turn.logprobs(), truncated ? 0 : 1);
                }
                if (row != null) row.addTo(out, adv[g][i]);
            }
        }
        return new Batch(out, kept.size(), dropped, masked, n == 0 ? 0 : sum / n, unscored);
    }
}
