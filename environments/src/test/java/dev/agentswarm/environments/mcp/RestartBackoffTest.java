package dev.agentswarm.environments.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** When a dropped server is started again. */
class RestartBackoffTest {

    @Test
    void doublesFromMinUpToMax() {
        RestartBackoff b = new RestartBackoff(Duration.ofMillis(500), Duration.ofSeconds(3));
        assertEquals(500, b.next(0));
        assertEquals(1000, b.next(0));
        assertEquals(2000, b.next(0));
        assertEquals(3000, b.next(0));
        assertEquals(3000, b.next(0));
    }

    @Test
    void anAnswerBringsItBackToMin() {
        RestartBackoff b = new RestartBackoff(Duration.ofMillis(200), Duration.ofSeconds(30));
        b.next(0);
        b.next(0);
        b.reset();
        assertEquals(200, b.next(0));
        assertEquals(400, b.next(0));
    }

    @Test
    void saysHowLongIsLeftUntilTheAttemptAndNothingOnceItIsDue() {
        RestartBackoff b = new RestartBackoff(Duration.ofSeconds(1), Duration.ofSeconds(8));
        long now = 5_000_000_000L;
        b.next(now);
        assertEquals(Duration.ofMillis(1000), b.untilRetry(now));
        assertEquals(Duration.ofMillis(250), b.untilRetry(now + 750_000_000L));
        assertEquals(Duration.ZERO, b.untilRetry(now + 2_000_000_000L));
        b.next(now + 2_000_000_000L);
        assertEquals(Duration.ofMillis(2000), b.untilRetry(now + 2_000_000_000L));
    }
}
