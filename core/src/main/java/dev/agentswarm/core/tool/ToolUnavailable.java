package dev.agentswarm.core.tool;

import dev.agentswarm.core.protocol.ToolStatus;

/**
 * An exception a tool fails with when its own infrastructure is down (its sandbox cannot start, its
 * MCP server crashed): not the model's doing, so the {@link ToolExecutor} reports it under
 * {@link #status()} rather than as an error observation, and the episode ends as an infrastructure
 * failure instead of training the model to avoid a tool that was merely down.
 */
public interface ToolUnavailable {

    /** {@link ToolStatus#SANDBOX_UNAVAILABLE} or {@link ToolStatus#SERVER_DOWN}; anything else reads as an ordinary error. */
    ToolStatus status();
}
