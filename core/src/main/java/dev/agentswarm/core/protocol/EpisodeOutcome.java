package dev.agentswarm.core.protocol;

/**
 * What an episode's trajectory is worth to a learner: an answer, the policy's own failure (max
 * turns, bad format, budget, deadline: the policy's doing, trained on as it scored) or a failure of
 * the infrastructure under it ({@link InfraFailure}), which is never trained on.
 */
public enum EpisodeOutcome {
    /** It ended as the task meant (an answer, or a conversation its user closed). */
    ANSWERED,
    /** It ended short of an answer through the policy's own doing; its reward stands. */
    POLICY_FAILURE,
    /** Something under the policy failed; the trajectory is not the policy's answer. */
    INFRA_FAILURE;

    public static EpisodeOutcome of(Trajectory t) {
        if (t.infraFailure() != null) return INFRA_FAILURE;
        return t.stopReason() != null && t.stopReason().completed() ? ANSWERED : POLICY_FAILURE;
    }
}
