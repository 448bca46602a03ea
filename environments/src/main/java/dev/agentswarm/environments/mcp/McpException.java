package dev.agentswarm.environments.mcp;

import dev.agentswarm.core.protocol.ToolStatus;
import dev.agentswarm.core.tool.ToolUnavailable;

/**
 * A call to an MCP server that got no answer from its tool: the server crashed, wrote garbage, hung,
 * timed out, was restarting or stopped. Its message is what the episode's model reads, and names
 * the server and what happened. Its server being down is not the model's doing: the episode ends as
 * an infrastructure failure ({@link ToolStatus#SERVER_DOWN}) instead of teaching the model to avoid the tool.
 */
public class McpException extends RuntimeException implements ToolUnavailable {

    private final ToolStatus status;

    public McpException(String message) {
        this(message, ToolStatus.SERVER_DOWN);
    }

    /** @param status how the call reads: {@link ToolStatus#ERROR} for a server that is up but did not answer this call in time */
    public McpException(String message, ToolStatus status) {
        super(message, null, false, false);
        this.status = status;
    }

    @Override
    public ToolStatus status() {
        return status;
    }
}
