package dev.agentswarm.environments.mcp;

import dev.agentswarm.core.protocol.ToolStatus;
import dev.agentswarm.core.tool.ToolUnavailable;

/**
 * A call to an MCP server that got no answer from its tool: the server crashed, wrote garbage, hung,
 * timed out, was restarting or stopped. Its message is what the episode's model reads, and names
 * the server and what happened. A server that is down is not the model's doing: the episode ends as
 * an infrastructure failure ({@link ToolStatus#SERVER_DOWN}) instead of teaching the model to avoid the tool.
 */
public class McpException extends RuntimeException implements ToolUnavailable {

    private final ToolStatus status;

    /**
     * @param status how the call reads: {@link ToolStatus#SERVER_DOWN} when the server is down or gone
     *     (an infrastructure failure), {@link ToolStatus#ERROR} when it is up but this call failed (no
     *     answer in time, an answer that could not be read, a tool it no longer lists): the model may
     *     call differently. Every failure names its status, so none is taken for the other by default.
     */
    public McpException(String message, ToolStatus status) {
        super(message, null, false, false);
        this.status = status;
    }

    @Override
    public ToolStatus status() {
        return status;
    }
}
