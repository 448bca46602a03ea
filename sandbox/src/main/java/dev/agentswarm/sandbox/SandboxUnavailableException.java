package dev.agentswarm.sandbox;

/** The sandbox cannot isolate code on this machine; the message says how to fix it. */
public final class SandboxUnavailableException extends RuntimeException {
    public SandboxUnavailableException(String message) {
        super(message);
    }
}
