package dev.agentswarm.workers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.policy.PolicyException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class PolicyRetryTest {

    @Test
    void theWaitDoublesLosesUpToHalfAtRandomAndIsCapped() {
        PolicyRetry r = new PolicyRetry(3, Duration.ofMillis(200));
        assertEquals(Duration.ofMillis(200), r.delay(0, 0.0));
        assertEquals(Duration.ofMillis(100), r.delay(0, 1.0));
        assertEquals(Duration.ofMillis(400), r.delay(1, 0.0));
        assertEquals(Duration.ofMillis(700), r.delay(2, 0.25), "800 less a quarter of its half");
        assertEquals(PolicyRetry.MAX_DELAY, r.delay(40, 0.0), "never longer than the cap, never overflowing");
    }

    @Test
    void onlyTheInfrastructuresFailuresAreRetried() {
        assertTrue(PolicyRetry.infrastructure(new PolicyException("policy server queue full", true)));
        assertTrue(PolicyRetry.infrastructure(new TimeoutException("ask timed out")), "no answer at all: the server's doing");
        assertFalse(PolicyRetry.infrastructure(new PolicyException("HTTP 400: context too long", false)));
    }

    @Test
    void settingsComeFromTheWorkersConfiguration() {
        PolicyRetry defaults = PolicyRetry.fromConfig(ConfigFactory.load());
        assertEquals(3, defaults.attempts());
        assertEquals(Duration.ofMillis(250), defaults.backoff());
        assertEquals(0, PolicyRetry.fromConfig(ConfigFactory.parseString("agentswarm.worker.policy-retries = 0")).attempts());
        assertThrows(IllegalArgumentException.class, () -> new PolicyRetry(-1, Duration.ZERO));
    }

    @Test
    void eachConfigurationIsReadForItselfEvenWhenItsReadingIsKept() {
        com.typesafe.config.Config none = ConfigFactory.parseString("agentswarm.worker.policy-retries = 0");
        com.typesafe.config.Config five = ConfigFactory.parseString("agentswarm.worker.policy-retries = 5");
        assertEquals(0, PolicyRetry.of(none).attempts());
        assertEquals(0, PolicyRetry.of(none).attempts());
        assertEquals(5, PolicyRetry.of(five).attempts(), "another system's configuration is not answered from the kept one");
        assertEquals(0, PolicyRetry.of(none).attempts());
    }
}
