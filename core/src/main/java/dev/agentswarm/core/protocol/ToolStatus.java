package dev.agentswarm.core.protocol;

/** How a tool call ended; everything but {@link #OK} is an error observation for the model. */
public enum ToolStatus {
    OK, UNKNOWN_TOOL, INVALID_ARGUMENTS, TIMEOUT, ERROR, CANCELLED;

    public boolean ok() {
        return this == OK;
    }
}
