package dev.agentswarm.environments.mcp;

/**
 * A call to an MCP server that got no answer from its tool: the server crashed, wrote garbage, hung,
 * timed out, was restarting or stopped. Its message is what the episode's model reads, and names
 * the server and what happened.
 */
public class McpException extends RuntimeException {

    public McpException(String message) {
        super(message, null, false, false);
    }
}
