package dev.agentswarm.core.reward;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ShapingRewardsTest {

    @Test
    void overlongPenaltyRampsOverTheBuffer() {
        // max 4096, buffer 3000: free up to 1096 tokens, −factor at 4096.
        assertEquals(0.0, ShapingRewards.overlongPenalty(1096, 4096, 3000, 1.0));
        assertEquals(-1.0 / 3000, ShapingRewards.overlongPenalty(1097, 4096, 3000, 1.0), 1e-15, "one token into the buffer");
        assertEquals(0.0, ShapingRewards.overlongPenalty(0, 4096, 3000, 1.0));
        assertEquals(-0.5, ShapingRewards.overlongPenalty(2596, 4096, 3000, 1.0), 1e-12);
        assertEquals(-1.0, ShapingRewards.overlongPenalty(4096, 4096, 3000, 1.0), 1e-12);
        assertEquals(-2.0, ShapingRewards.overlongPenalty(9000, 4096, 3000, 2.0), 1e-12);
        assertEquals(-0.375, ShapingRewards.overlongPenalty(3346, 4096, 3000, 0.5), 1e-12); // 3/4 of the way, factor 0.5
        assertThrows(IllegalArgumentException.class, () -> ShapingRewards.overlongPenalty(10, 100, 0, 1.0));
        assertThrows(IllegalArgumentException.class, () -> ShapingRewards.overlongPenalty(10, 100, 200, 1.0));
    }

    @Test
    void efficiencyFavoursFewerHops() {
        assertEquals(1.0, ShapingRewards.efficiency(2, 2, 8));
        assertEquals(0.5, ShapingRewards.efficiency(5, 2, 8), 1e-12);
        assertEquals(0.0, ShapingRewards.efficiency(9, 2, 8));
        assertEquals(0.0, ShapingRewards.efficiency(0, 2, 8), "no search at all is not efficient, it is a guess");
        assertThrows(IllegalArgumentException.class, () -> ShapingRewards.efficiency(1, 3, 3));
    }

    @Test
    void toolCallRewardPaysForTryingEvenWhenTheCallFailed() {
        assertEquals(1.0, ShapingRewards.toolCall(2, 0, false));
        assertEquals(0.0, ShapingRewards.toolCall(2, 0, true));
        assertEquals(0.0, ShapingRewards.toolCall(0, 0, false));
    }

    @Test
    void formatIsTheShareOfCleanTurnsOfAnAnsweredEpisode() {
        assertEquals(0.75, ShapingRewards.format(4, 1, true), 1e-12);
        assertEquals(0.0, ShapingRewards.format(4, 0, false));
        assertEquals(0.0, ShapingRewards.format(2, 5, true), "never negative");
    }
}
