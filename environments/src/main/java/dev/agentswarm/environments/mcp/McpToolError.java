package dev.agentswarm.environments.mcp;

import dev.agentswarm.core.protocol.ToolStatus;

/**
 * The tool answered with an error ({@code isError: true}, its text the message), or its server
 * refused the call (a JSON-RPC error): the episode reads it as an error observation.
 */
public final class McpToolError extends McpException {

    /** The server is up and answered: the model reads the error and may call differently. */
    public McpToolError(String message) {
        super(message, ToolStatus.ERROR);
    }
}
