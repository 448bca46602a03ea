package dev.agentswarm.learner.rl;

import ai.djl.ndarray.NDArray;

/**
 * DPO's sigmoid loss over preference pairs, from each completion's summed log-prob under the policy
 * and under the frozen reference: −log σ(β·((π_c − ref_c) − (π_r − ref_r))), averaged over pairs
 * (seed 001 uses β = 0.1). The implicit rewards β·(π − ref) of chosen and rejected give the
 * accuracy (chosen above rejected) and the margin that TRL logs.
 */
public final class DpoLoss {

    /** The loss (a scalar with a graph) and the statistics of the pairs. */
    public record Terms(NDArray loss, double accuracy, double margin, double chosenReward, double rejectedReward) {}

    private final double beta;

    public DpoLoss(double beta) {
        if (!(beta > 0)) throw new IllegalArgumentException("dpo beta must be > 0, got " + beta);
        this.beta = beta;
    }

    /** All four are (P): one summed log-prob per pair. */
    public Terms compute(NDArray policyChosen, NDArray policyRejected, NDArray refChosen, NDArray refRejected) {
        NDArray chosen = policyChosen.sub(refChosen).mul((float) beta);
        NDArray rejected = policyRejected.sub(refRejected).mul((float) beta);
        NDArray z = chosen.sub(rejected);
        // −log σ(z) = log(1 + e^{−z}) = max(−z, 0) + log(1 + e^{−|z|}): no overflow for large |z|.
        NDArray loss = z.neg().maximum(0f).add(z.abs().neg().exp().add(1f).log()).mean();
        NDArray c = chosen.stopGradient();
        NDArray r = rejected.stopGradient();
        return new Terms(loss, c.gt(r).toType(c.getDataType(), false).mean().getFloat(), c.sub(r).mean().getFloat(),
                c.mean().getFloat(), r.mean().getFloat());
    }
}
