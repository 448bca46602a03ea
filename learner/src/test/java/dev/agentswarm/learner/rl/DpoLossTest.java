package dev.agentswarm.learner.rl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import org.junit.jupiter.api.Test;

class DpoLossTest {

    @Test
    void sigmoidLossOfTwoPairsByHand() {
        try (NDManager m = NDManager.newBaseManager()) {
            // pair 1: chosen 1 nat above its reference, rejected 1 below: z = 0.1 − (−0.1) = 0.2, loss log(1 + e^−0.2) = 0.598139
            // pair 2: chosen 1 nat below its reference, rejected at it: z = −0.1, loss log(1 + e^0.1) = 0.744397
            DpoLoss.Terms t = new DpoLoss(0.1).compute(m.create(new float[] {-10, -5}), m.create(new float[] {-12, -5}),
                    m.create(new float[] {-11, -4}), m.create(new float[] {-11, -5}));
            assertEquals(0.6712678, t.loss().getFloat(), 1e-5);
            assertEquals(0.5, t.accuracy(), 1e-9);
            assertEquals((0.2 - 0.1) / 2, t.margin(), 1e-5);
            assertEquals((0.1 - 0.1) / 2, t.chosenReward(), 1e-5);
            assertEquals((-0.1 + 0) / 2, t.rejectedReward(), 1e-5);
        }
    }

    @Test
    void rpoAddsTheChosenAnswersNllPerToken() {
        try (NDManager m = NDManager.newBaseManager()) {
            // The pairs above, 5 chosen tokens in all: NLL per token (10 + 5) / 5 = 3; loss 0.6712678 + 0.5 × 3.
            NDArray chosen = m.create(new float[] {-10, -5});
            chosen.setRequiresGradient(true);
            DpoLoss.Terms t = new DpoLoss(0.1, 0.5).compute(chosen, m.create(new float[] {-12, -5}), m.create(new float[] {-11, -4}),
                    m.create(new float[] {-11, -5}), 5);
            assertEquals(2.1712678, t.loss().getFloat(), 1e-5);
            assertEquals(3.0, t.nll(), 1e-6);
            assertEquals(0.5, t.accuracy(), 1e-9, "the pairs' statistics are DPO's own");
            assertTrue(Double.isNaN(new DpoLoss(0.1).compute(chosen, chosen, chosen, chosen).nll()), "off by default");
            assertThrows(IllegalArgumentException.class, () -> new DpoLoss(0.1, -1));
            assertThrows(IllegalArgumentException.class, () -> new DpoLoss(0.1, 0.5).compute(chosen, chosen, chosen, chosen),
                    "the RPO term needs the token count");
        }
    }

    @Test
    void extremeMarginsStayFinite() {
        try (NDManager m = NDManager.newBaseManager()) {
            DpoLoss loss = new DpoLoss(1.0);
            assertEquals(0, loss.compute(m.create(new float[] {0}), m.create(new float[] {-2000}), m.create(new float[] {0}),
                    m.create(new float[] {0})).loss().getFloat(), 1e-6);
            float wrong = loss.compute(m.create(new float[] {-2000}), m.create(new float[] {0}), m.create(new float[] {0}),
                    m.create(new float[] {0})).loss().getFloat();
            assertEquals(2000, wrong, 1e-2);
            assertTrue(Float.isFinite(wrong));
            assertThrows(IllegalArgumentException.class, () -> new DpoLoss(0));
        }
    }
}
