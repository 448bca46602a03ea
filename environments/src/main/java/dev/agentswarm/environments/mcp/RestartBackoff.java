package dev.agentswarm.environments.mcp;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * When a dropped MCP server is started again ({@code restart-backoff}): the delay doubles from
 * {@code min} after each failure, up to {@code max}, and is back to {@code min} once the server
 * answers a call; calls refused meanwhile say how long is left. Apart from {@link McpServer} so the
 * schedule can be checked without a server. Not thread-safe: its server holds its lock around it.
 */
final class RestartBackoff {

    private final long minMillis;
    private final long maxMillis;
    private long nextMillis;
    private long retryAtNanos;

    RestartBackoff(Duration min, Duration max) {
        this.minMillis = min.toMillis();
        this.maxMillis = max.toMillis();
        this.nextMillis = minMillis;
    }

    /**
     * The delay in milliseconds before the next attempt, which is due at {@code nowNanos} plus it; the
     * delay after it is twice as long, up to {@code max}.
     */
    long next(long nowNanos) {
        long delay = nextMillis;
        nextMillis = Math.min(nextMillis * 2, maxMillis);
        retryAtNanos = nowNanos + TimeUnit.MILLISECONDS.toNanos(delay);
        return delay;
    }

    /** How long until the attempt last scheduled by {@link #next}; zero once it is due. */
    Duration untilRetry(long nowNanos) {
        return Duration.ofNanos(Math.max(0, retryAtNanos - nowNanos));
    }

    /** The server answered: the next failure waits {@code min} again. */
    void reset() {
        nextMillis = minMillis;
    }
}
