package dev.agentswarm.workers;

import com.typesafe.config.Config;
import dev.agentswarm.core.policy.PolicyException;
import java.time.Duration;

/**
 * How an episode asks the policy again after a failure that a later call may not have: the server
 * unreachable, timed out, or its queue full ({@link PolicyException#retryable()}). Each turn may
 * retry {@code attempts} times, waiting {@code backoff}·2ⁿ (less up to half of it at random, so
 * episodes that failed together do not come back together) while the episode's deadline allows;
 * only then does the episode end, as an infrastructure failure that is never trained on.
 */
record PolicyRetry(int attempts, Duration backoff) {

    static final String ATTEMPTS = "agentswarm.worker.policy-retries";
    static final String BACKOFF = "agentswarm.worker.policy-retry-backoff";
    /** The longest single wait: past this a deadline, not a retry, should end the episode. */
    static final Duration MAX_DELAY = Duration.ofSeconds(30);

    PolicyRetry {
        if (attempts < 0) throw new IllegalArgumentException(ATTEMPTS + " must be >= 0, got " + attempts);
        if (backoff.isNegative()) throw new IllegalArgumentException(BACKOFF + " must be >= 0, got " + backoff);
    }

    /** The settings last read and what they say; see {@link #of}. */
    private record Read(Config config, PolicyRetry retry) {}

    private static volatile Read last;

    /**
     * The retry settings of {@code c}, read once per configuration object: every episode asks on start,
     * and four path lookups in a whole actor system's configuration cost more than the runtime's own share
     * of a turn (bench episodes: 24 → 28 CPU µs per turn when read per episode). An actor system's
     * configuration is one object for its life, so the check is by identity.
     */
    static PolicyRetry of(Config c) {
        Read r = last;
        if (r != null && r.config() == c) return r.retry();
        PolicyRetry read = fromConfig(c);
        last = new Read(c, read);
        return read;
    }

    static PolicyRetry fromConfig(Config c) {
        return new PolicyRetry(c.hasPath(ATTEMPTS) ? c.getInt(ATTEMPTS) : 3,
                c.hasPath(BACKOFF) ? c.getDuration(BACKOFF) : Duration.ofMillis(250));
    }

    /**
     * Whether a policy call's failure is the infrastructure's rather than the policy's: a retryable
     * {@link PolicyException}, or anything else that is not one (an ask that timed out, a server
     * actor gone). A non-retryable {@link PolicyException} (a response that cannot be used, a
     * conversation that cannot be rendered) is the policy's own failure.
     */
    static boolean infrastructure(Throwable failure) {
        return !(failure instanceof PolicyException p) || p.retryable();
    }

    /** The wait before retry {@code n} (0-based), {@code random} in [0, 1). */
    Duration delay(int n, double random) {
        long full = backoff.toMillis() << Math.min(n, 20);
        long capped = Math.min(full, MAX_DELAY.toMillis());
        return Duration.ofMillis(capped - (long) (capped / 2.0 * random));
    }
}
