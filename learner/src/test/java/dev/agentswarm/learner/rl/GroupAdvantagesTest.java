package dev.agentswarm.learner.rl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class GroupAdvantagesTest {

    private static final double[][] REWARDS = {{1, 0, 0, 1}, {1, 1, 1, 1}};

    @Test
    void groupScaleDividesByEachGroupsUnbiasedStd() {
        double[][] a = GroupAdvantages.compute(REWARDS, GroupAdvantages.Scale.GROUP);
        // mean 0.5, unbiased std sqrt(1/3) = 0.57735; 0.5 / (0.57735 + 1e-4) = 0.86588
        assertArrayEquals(new double[] {0.8658754, -0.8658754, -0.8658754, 0.8658754}, a[0], 1e-6);
        assertArrayEquals(new double[] {0, 0, 0, 0}, a[1], 1e-12, "a zero-variance group teaches nothing");
    }

    @Test
    void batchScaleDividesByTheStdOfAllRewards() {
        double[][] a = GroupAdvantages.compute(REWARDS, GroupAdvantages.Scale.BATCH);
        // all eight rewards: mean 0.75, unbiased variance 1.5 / 7; 0.5 / (0.46291 + 1e-4) = 1.07989
        assertArrayEquals(new double[] {1.0798902, -1.0798902, -1.0798902, 1.0798902}, a[0], 1e-6);
        assertArrayEquals(new double[] {0, 0, 0, 0}, a[1], 1e-12);
    }

    @Test
    void noScaleLeavesTheCentredRewards() {
        double[][] a = GroupAdvantages.compute(new double[][] {{3, 1}, {0.2, 0.4, 0.9}}, GroupAdvantages.Scale.NONE);
        assertArrayEquals(new double[] {1, -1}, a[0], 1e-12);
        assertArrayEquals(new double[] {-0.3, -0.1, 0.4}, a[1], 1e-12);
    }

    @Test
    void zeroVarianceAndBadInput() {
        assertTrue(GroupAdvantages.zeroVariance(new double[] {0.5, 0.5, 0.5}));
        assertFalse(GroupAdvantages.zeroVariance(new double[] {0.5, 0.5, 0.6}));
        assertThrows(IllegalArgumentException.class, () -> GroupAdvantages.compute(new double[][] {{}}, GroupAdvantages.Scale.GROUP));
        assertThrows(IllegalArgumentException.class, () -> GroupAdvantages.Scale.parse("median"));
    }
}
