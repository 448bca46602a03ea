package dev.agentswarm.environments.tau2;

/** What a τ² tool raised: the caller sees {@code "Error: " + message}, as τ² reports any exception of a tool. */
public final class Tau2Error extends RuntimeException {
    public Tau2Error(String message) {
        super(message, null, false, false);
    }
}
