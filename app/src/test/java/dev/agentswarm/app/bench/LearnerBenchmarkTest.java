package dev.agentswarm.app.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.learner.rl.RlSample;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The benchmark's batch has the PyTorch reference's shape, so the two figures compare. */
class LearnerBenchmarkTest {

    @Test
    void theBatchIsFourPromptsOfFourWithTheReferencesLengths() {
        List<RlSample> b = LearnerBenchmark.referenceBatch(16, 4, 256, 512);
        assertEquals(16, b.size());
        for (int r = 0; r < 16; r++) {
            RlSample s = b.get(r);
            assertEquals(1, s.trained()[103], "the first 40 % of T = 256 is the prompt (256 − int(0.6 · 256))");
            assertEquals(0, s.trained()[102]);
            assertTrue(s.trainedTokens() >= 76 && s.trainedTokens() <= 153, "completions of half to all of the rest");
            assertArrayEquals(java.util.Arrays.copyOf(b.get(r - r % 4).ids(), 103), java.util.Arrays.copyOf(s.ids(), 103),
                    "a group shares its prompt");
        }
        assertEquals(256, b.get(0).length(), "one full row: every step runs B × T tokens, as the reference's padded batch");
        double groupSum = 0;
        for (int i = 0; i < 4; i++) groupSum += b.get(i).advantage();
        assertEquals(0, groupSum, 1e-9, "group-relative advantages sum to zero");
    }
}
