package dev.agentswarm.core.protocol;

/**
 * How a tool call ended; everything but {@link #OK} is an error observation for the model.
 * {@link #INTERRUPTED}: the call was in flight when its node crashed, and its tool is not idempotent,
 * so a resumed episode does not run it again: whether it took effect is unknown.
 */
public enum ToolStatus {
    OK, UNKNOWN_TOOL, INVALID_ARGUMENTS, TIMEOUT, ERROR, CANCELLED, INTERRUPTED;

    public boolean ok() {
        return this == OK;
    }
}
