package dev.agentswarm.learner.rl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import dev.agentswarm.policy.model.InferenceThreads;
import org.junit.jupiter.api.Test;

/**
 * Hand-computed cases. Two sequences of three tokens, ratios exp(logp − old) of
 * [1.0, 1.5, 0.5] and [1.1, 0.7, 2.0], advantages +1 and −2, the last token of the second masked;
 * ε = 0.2, ε_high = 0.28, so ratios are clipped to [0.8, 1.28]. Per token −min(r·A, clip(r)·A):
 * row 0: −1, −1.28 (held at 1.28), −0.5 (a low ratio with A > 0 is not clipped);
 * row 1: 2.2, 1.6 (held at 0.8), and 4 masked out. Masked sum 1.02 over 5 tokens.
 */
class PolicyLossTest {

    private static final float[] LOGP = {-1.0f, -2.0f, -0.5f, -0.3f, -1.2f, -0.9f};
    private static final double[] RATIOS = {1.0, 1.5, 0.5, 1.1, 0.7, 2.0};
    private static final float[] MASK = {1, 1, 1, 1, 1, 0};
    private static final PolicyLoss.Batch BATCH = new PolicyLoss.Batch(5, 2, 2, 4);

    private static PolicyLoss loss(PolicyLoss.Type type, double beta, double tisCap) {
        return new PolicyLoss(new PolicyLoss.Settings(type, 0.2, 0.28, beta, tisCap));
    }

    private static NDArray rows(NDManager m, float[] v) {
        return m.create(v, new Shape(2, 3));
    }

    private static NDArray old(NDManager m) {
        float[] o = new float[6];
        for (int i = 0; i < 6; i++) o[i] = (float) (LOGP[i] - Math.log(RATIOS[i]));
        return rows(m, o);
    }

    private static PolicyLoss.Terms run(PolicyLoss loss, NDManager m, NDArray sampler, NDArray ref) {
        return loss.compute(rows(m, LOGP), old(m), sampler, ref, m.create(new float[] {1, -2}), rows(m, MASK), BATCH);
    }

    @Test
    void eachLossTypeAveragesTheSameTermsItsOwnWay() {
        try (NDManager m = NDManager.newBaseManager()) {
            assertEquals(1.02 / 5, run(loss(PolicyLoss.Type.DAPO, 0, 0), m, null, null).loss().getFloat(), 1e-5, "token mean of the batch");
            // grpo: row means −2.78/3 and 3.8/2, averaged over the 2 sequences
            assertEquals((-2.78 / 3 + 1.9) / 2, run(loss(PolicyLoss.Type.GRPO, 0, 0), m, null, null).loss().getFloat(), 1e-5);
            assertEquals(1.02 / (2 * 4), run(loss(PolicyLoss.Type.DR_GRPO, 0, 0), m, null, null).loss().getFloat(), 1e-5,
                    "sequences × max completion length");
            assertEquals(1.02 / 5 / 2, run(loss(PolicyLoss.Type.BNPO, 0, 0), m, null, null).loss().getFloat(), 1e-5,
                    "this micro-batch's tokens, over 2 micro-batches");
        }
    }

    @Test
    void statisticsCountTheTokensTheClipHeldBack() {
        try (NDManager m = NDManager.newBaseManager()) {
            PolicyLoss.Terms t = run(loss(PolicyLoss.Type.DAPO, 0, 0), m, null, null);
            assertEquals(2, t.clippedTokens(), 1e-6, "1.5 with A > 0 and 0.7 with A < 0; 0.5 with A > 0 is not held");
            assertEquals(1 + 1.5 + 0.5 + 1.1 + 0.7, t.ratioSum(), 1e-5, "masked tokens only");
            assertEquals(5, t.tokens());
            assertEquals(0, t.klSum());
        }
    }

    @Test
    void klToTheReferenceIsTheK3Estimate() {
        try (NDManager m = NDManager.newBaseManager()) {
            float[] ref = LOGP.clone();
            ref[1] += (float) Math.log(2); // ref − logp = ln 2 on one token: k3 = 2 − ln 2 − 1 = 0.306853
            PolicyLoss.Terms t = run(loss(PolicyLoss.Type.DAPO, 0.1, 0), m, null, rows(m, ref));
            assertEquals(0.3068528, t.klSum(), 1e-5);
            assertEquals((1.02 + 0.1 * 0.3068528) / 5, t.loss().getFloat(), 1e-5);
            assertThrows(IllegalArgumentException.class, () -> run(loss(PolicyLoss.Type.DAPO, 0.1, 0), m, null, null));
        }
    }

    @Test
    void truncatedImportanceSamplingWeighsTokensTheSamplerFoundLessLikely() {
        try (NDManager m = NDManager.newBaseManager()) {
            float[] sampler = new float[6];
            float[] o = old(m).toFloatArray();
            System.arraycopy(o, 0, sampler, 0, 6);
            sampler[0] -= (float) Math.log(3); // old / sampler = 3 on the first token, capped at 2: its −1 becomes −2
            assertEquals((1.02 - 1) / 5, run(loss(PolicyLoss.Type.DAPO, 0, 2), m, rows(m, sampler), null).loss().getFloat(), 1e-5);
            assertEquals(1.02 / 5, run(loss(PolicyLoss.Type.DAPO, 0, 0), m, rows(m, sampler), null).loss().getFloat(), 1e-5,
                    "cap 0 turns it off");
        }
    }

    @Test
    void theGradientFlowsOnlyThroughUnclippedCompletionTokens() {
        InferenceThreads.noGradHere();
        try (NDManager m = NDManager.newBaseManager()) {
            NDArray logp = rows(m, LOGP);
            logp.setRequiresGradient(true);
            try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
                PolicyLoss.Terms t = loss(PolicyLoss.Type.DAPO, 0, 0).compute(logp, old(m), null, null, m.create(new float[] {1, -2}),
                        rows(m, MASK), BATCH);
                gc.backward(t.loss());
            }
            // d/dlogp of −r·A/N is −A·r/N where unclipped; 0 where clipped or masked.
            assertArrayEquals(new float[] {-0.2f, 0f, -0.1f, 0.44f, 0f, 0f}, logp.getGradient().toFloatArray(), 1e-5f);
        }
    }

    @Test
    void badSettingsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new PolicyLoss.Settings(PolicyLoss.Type.DAPO, 0.2, 0.1, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new PolicyLoss.Settings(PolicyLoss.Type.DAPO, 0, 0.2, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new PolicyLoss.Settings(PolicyLoss.Type.DAPO, 0.2, 0.28, -1, 0));
        assertThrows(IllegalArgumentException.class, () -> new PolicyLoss.Settings(PolicyLoss.Type.DAPO, 0.2, 0.28, 0, 0.5));
        assertThrows(IllegalArgumentException.class, () -> PolicyLoss.Type.parse("ppo"));
    }
}
