package dev.agentswarm.core.policy;

import java.net.URI;

/**
 * Opens a client for a model served behind an OpenAI-compatible endpoint. Suites that need models of
 * their own besides the agent's (τ²'s simulated user and judge) are handed one, so the suites need not
 * know which client the node uses.
 */
@FunctionalInterface
public interface ModelClients {

    Policy connect(URI endpoint, String model);

    /** For callers that reach no model endpoints: naming one is a configuration error. */
    ModelClients NONE = (endpoint, model) -> {
        throw new IllegalArgumentException("model " + model + " at " + endpoint + ": this command does not reach model endpoints");
    };
}
