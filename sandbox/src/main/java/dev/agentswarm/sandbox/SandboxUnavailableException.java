package dev.agentswarm.sandbox;

import dev.agentswarm.core.protocol.ToolStatus;
import dev.agentswarm.core.tool.ToolUnavailable;

/**
 * The sandbox cannot isolate code on this machine; the message says how to fix it. Not the model's
 * doing: an episode whose code could not run ends as an infrastructure failure, never trained on.
 */
public final class SandboxUnavailableException extends RuntimeException implements ToolUnavailable {
    public SandboxUnavailableException(String message) {
        super(message);
    }

    @Override
    public ToolStatus status() {
        return ToolStatus.SANDBOX_UNAVAILABLE;
    }
}
