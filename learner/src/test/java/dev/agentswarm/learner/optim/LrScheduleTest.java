package dev.agentswarm.learner.optim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class LrScheduleTest {

    @Test
    void warmsUpLinearlyThenFollowsAHalfCosineToTheFloor() {
        LrSchedule s = new LrSchedule(1e-3, 1e-4, 4, 12);
        assertEquals(2.5e-4, s.at(0), 1e-12); // (0+1)/4 of the peak
        assertEquals(5.0e-4, s.at(1), 1e-12);
        assertEquals(1.0e-3, s.at(3), 1e-12);
        assertEquals(1.0e-3, s.at(4), 1e-12); // cosine at progress 0
        // progress 2/8: 1e-4 + 0.5 * 9e-4 * (1 + cos(pi/4)) = 1e-4 + 4.5e-4 * 1.70710678
        assertEquals(8.681980515e-4, s.at(6), 1e-12);
        assertEquals(5.5e-4, s.at(8), 1e-12); // progress 1/2: the mid-point
        assertEquals(1.0e-4, s.at(12), 1e-12);
        assertEquals(1.0e-4, s.at(500), 1e-12);
    }

    @Test
    void withoutWarmUpTheFirstStepUsesThePeak() {
        LrSchedule s = new LrSchedule(0.01, 0, 0, 2);
        assertEquals(0.01, s.at(0), 1e-15);
        assertEquals(0.005, s.at(1), 1e-15);
        assertEquals(0.0, s.at(2), 1e-15);
    }

    @Test
    void refusesAFloorAboveThePeak() {
        assertThrows(IllegalArgumentException.class, () -> new LrSchedule(1e-4, 1e-3, 0, 10));
    }
}
