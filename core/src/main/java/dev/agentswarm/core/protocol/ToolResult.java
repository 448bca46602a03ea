package dev.agentswarm.core.protocol;

import dev.agentswarm.core.CborSerializable;

/**
 * The observation one tool call produced: the (possibly capped) text the model will read, how
 * the call ended, whether the text was cut, and how long the call took.
 */
public record ToolResult(String callId, String name, String content, ToolStatus status, boolean truncated,
                         long durationNanos) implements CborSerializable {

    public boolean ok() {
        return status == ToolStatus.OK;
    }

    public ToolResult withoutTiming() {
        return new ToolResult(callId, name, content, status, truncated, 0);
    }
}
