package dev.agentswarm.core.policy;

/**
 * A policy call that failed for a reason worth telling the user: bad endpoint, HTTP error with the
 * server's message, malformed response, timeout after retries. {@code retryable} says whether a
 * later attempt could succeed.
 */
public class PolicyException extends RuntimeException {

    private final boolean retryable;

    public PolicyException(String message, boolean retryable) {
        super(message);
        this.retryable = retryable;
    }

    public PolicyException(String message, boolean retryable, Throwable cause) {
        super(message, cause);
        this.retryable = retryable;
    }

    public boolean retryable() {
        return retryable;
    }
}
