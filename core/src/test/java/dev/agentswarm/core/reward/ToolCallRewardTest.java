package dev.agentswarm.core.reward;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ToolCallRewardTest {

    private static final ToolCallReward TCR = ToolCallReward.DEFAULT;

    @Test
    void aRightAnswerScoresOneWhateverTheTools() {
        assertEquals(1.0, TCR.score(true, 0));
        assertEquals(1.0, TCR.score(true, 7));
        assertEquals(0.0, TCR.bonus(true, 7));
    }

    @Test
    void aWrongAnswerEarnsATenthARoundUpToTheCap() {
        assertEquals(-1.0, TCR.score(false, 0), 1e-12);
        assertEquals(-0.9, TCR.score(false, 1), 1e-12);
        assertEquals(-0.7, TCR.score(false, 3), 1e-12);
        assertEquals(-0.6, TCR.score(false, 4), 1e-12, "verl num_turns 10: (10 − 2) / 2 = 4 rounds");
        assertEquals(-0.6, TCR.score(false, 12), 1e-12, "capped: a wrong answer never nears a right one");
        assertEquals(0.2, TCR.bonus(false, 2), 1e-12);
        assertEquals(-0.5, new ToolCallReward(1.0, -1.0, 0.25, 0.0).score(false, 2), 1e-12);
    }

    @Test
    void parametersAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> TCR.score(false, -1));
        assertThrows(IllegalArgumentException.class, () -> new ToolCallReward(1.0, -1.0, 0.1, 1.0), "cap must stay below a right answer");
        assertThrows(IllegalArgumentException.class, () -> new ToolCallReward(1.0, -1.0, 0.1, -2.0), "cap below the wrong score");
        assertThrows(IllegalArgumentException.class, () -> new ToolCallReward(1.0, -1.0, -0.1, -0.6));
        assertThrows(IllegalArgumentException.class, () -> new ToolCallReward(Double.NaN, -1.0, 0.1, -0.6));
    }
}
