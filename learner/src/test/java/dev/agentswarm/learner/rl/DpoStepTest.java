package dev.agentswarm.learner.rl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import dev.agentswarm.learner.optim.AdamW;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.ModelConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** DPO on toy pairs: the chosen completion's tokens are all below 128, the rejected one's all above. */
class DpoStepTest {

    private static final ModelConfig TINY = ModelConfig.preset("tiny");
    static final AdamW.Settings ADAM = new AdamW.Settings(0.9, 0.99, 1e-8, 0.0);

    /** Chosen completions use ids below 128, rejected ones ids above. */
    static List<PreferencePair> pairs(long seed, int n) {
        SplittableRandom rng = new SplittableRandom(seed);
        List<PreferencePair> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new PreferencePair(rng.ints(4, 0, 256).toArray(), rng.ints(6, 0, 128).toArray(), rng.ints(6, 128, 256).toArray()));
        }
        return out;
    }

    @Test
    void atTheReferenceTheLossIsLnTwoAndTrainingSeparatesHeldOutPairs() {
        try (NDManager root = NDManager.newBaseManager()) {
            CausalLm model = CausalLm.create(TINY, root, 7);
            try (AdamW opt = new AdamW(model.namedParameters(), ADAM, root)) {
                DpoStep step = new DpoStep(model, opt, root, new DpoLoss(0.1));
                List<PreferencePair> train = pairs(1, 64);
                List<PreferencePair> heldout = pairs(2, 32);
                List<DpoStep.Reference> refs = DpoStep.referenceLogProbs(model, root, train, 16, 0);
                List<DpoStep.Reference> heldoutRefs = DpoStep.referenceLogProbs(model, root, heldout, 16, 0);
                DpoStep.Outcome first = step.run(train.subList(0, 16), refs.subList(0, 16), 5, 0, 3e-3, 1.0);
                assertEquals(Math.log(2), first.loss(), 1e-4, "policy = reference: z = 0 for every pair");
                assertEquals(0, first.margin(), 1e-4);
                DpoStep.Outcome last = first;
                for (int s = 1; s < 25; s++) {
                    int from = (s * 16) % 64;
                    last = step.run(train.subList(from, from + 16), refs.subList(from, from + 16), 8, 0, 3e-3, 1.0);
                }
                assertTrue(last.loss() < 0.4, "training loss " + last.loss());
                // Held-out pairs, never trained on: the policy now prefers each chosen completion more than the reference did.
                List<DpoStep.Reference> now = DpoStep.referenceLogProbs(model, root, heldout, 16, 0);
                int separated = 0;
                for (int i = 0; i < heldout.size(); i++) {
                    double policyMargin = now.get(i).chosen() - now.get(i).rejected();
                    double referenceMargin = heldoutRefs.get(i).chosen() - heldoutRefs.get(i).rejected();
                    if (policyMargin > referenceMargin) separated++;
                }
                assertTrue(separated >= 30, separated + " of 32 held-out pairs moved the right way");
            }
        }
    }

    @Test
    void mismatchedReferencesAreRefused() {
        try (NDManager root = NDManager.newBaseManager()) {
            CausalLm model = CausalLm.create(TINY, root, 7);
            try (AdamW opt = new AdamW(model.namedParameters(), ADAM, root)) {
                DpoStep step = new DpoStep(model, opt, root, new DpoLoss(0.1));
                List<PreferencePair> p = pairs(1, 2);
                assertThrows(IllegalArgumentException.class, () -> step.run(p, List.of(new DpoStep.Reference(0, 0)), 2, 0, 1e-3, 1.0));
                assertThrows(IllegalArgumentException.class, () -> new PreferencePair(new int[] {1}, new int[0], new int[] {2}));
            }
        }
    }
}
