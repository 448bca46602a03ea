package dev.agentswarm.learner.rl;

import ai.djl.ndarray.NDArray;

/**
 * DPO's sigmoid loss over preference pairs, from each completion's summed log-prob under the policy
 * and under the frozen reference: −log σ(β·((π_c − ref_c) − (π_r − ref_r))), averaged over pairs
 * (seed 001 uses β = 0.1). The implicit rewards β·(π − ref) of chosen and rejected give the
 * accuracy (chosen above rejected) and the margin that TRL logs. With {@code rpoAlpha > 0} it adds
 * α times the chosen completions' negative log-likelihood per token (RPO, TRL's {@code rpo_alpha}):
 * DPO alone may lower the chosen answers' likelihood along with the rejected ones', which costs a
 * small model exactly the token-precise skills (copying numbers) its answers need.
 */
public final class DpoLoss {

    /** The loss (a scalar with a graph) and the statistics of the pairs; {@code nll} is NaN without the RPO term. */
    public record Terms(NDArray loss, double accuracy, double margin, double chosenReward, double rejectedReward, double nll) {}

    private final double beta;
    private final double rpoAlpha;

    public DpoLoss(double beta) {
        this(beta, 0);
    }

    public DpoLoss(double beta, double rpoAlpha) {
        if (!(beta > 0)) throw new IllegalArgumentException("dpo beta must be > 0, got " + beta);
        if (!(rpoAlpha >= 0)) throw new IllegalArgumentException("dpo rpo-alpha must be >= 0, got " + rpoAlpha);
        this.beta = beta;
        this.rpoAlpha = rpoAlpha;
    }

    /** Plain DPO: all four are (P), one summed log-prob per pair. */
    public Terms compute(NDArray policyChosen, NDArray policyRejected, NDArray refChosen, NDArray refRejected) {
        return compute(policyChosen, policyRejected, refChosen, refRejected, 0);
    }

    /** The same, with {@code chosenTokens} (the chosen completions' tokens in all) for the RPO term's per-token mean. */
    public Terms compute(NDArray policyChosen, NDArray policyRejected, NDArray refChosen, NDArray refRejected, long chosenTokens) {
        NDArray chosen = policyChosen.sub(refChosen).mul((float) beta);
        NDArray rejected = policyRejected.sub(refRejected).mul((float) beta);
        NDArray z = chosen.sub(rejected);
        // −log σ(z) = log(1 + e^{−z}) = max(−z, 0) + log(1 + e^{−|z|}): no overflow for large |z|.
        NDArray loss = z.neg().maximum(0f).add(z.abs().neg().exp().add(1f).log()).mean();
        double nll = Double.NaN;
        if (rpoAlpha > 0) {
            if (chosenTokens < 1) throw new IllegalArgumentException("the RPO term needs the chosen tokens' count, got " + chosenTokens);
            NDArray perToken = policyChosen.sum().neg().div((float) chosenTokens);
            nll = perToken.getFloat();
            loss = loss.add(perToken.mul((float) rpoAlpha));
        }
        NDArray c = chosen.stopGradient();
        NDArray r = rejected.stopGradient();
        return new Terms(loss, c.gt(r).toType(c.getDataType(), false).mean().getFloat(), c.sub(r).mean().getFloat(),
                c.mean().getFloat(), r.mean().getFloat(), nll);
    }
}
