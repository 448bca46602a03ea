package dev.agentswarm.core.protocol;

/**
 * How a tool call ended; everything but {@link #OK} is an error observation for the model.
 * {@link #INTERRUPTED}: the call was in flight when its node crashed, and its tool is not idempotent,
 * so a resumed episode does not run it again: whether it took effect is unknown.
 * {@link #SANDBOX_UNAVAILABLE} and {@link #SERVER_DOWN}: the tool's own infrastructure failed, not the
 * model's call; the episode ends as an infrastructure failure ({@link InfraFailure}) instead of going on.
 */
public enum ToolStatus {
    OK, UNKNOWN_TOOL, INVALID_ARGUMENTS, TIMEOUT, ERROR, CANCELLED, INTERRUPTED, SANDBOX_UNAVAILABLE, SERVER_DOWN;

    public boolean ok() {
        return this == OK;
    }
}
