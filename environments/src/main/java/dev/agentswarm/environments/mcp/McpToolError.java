package dev.agentswarm.environments.mcp;

/**
 * The tool answered with an error ({@code isError: true}, its text the message), or its server
 * refused the call (a JSON-RPC error): the episode reads it as an error observation.
 */
public final class McpToolError extends McpException {

    public McpToolError(String message) {
        super(message);
    }
}
