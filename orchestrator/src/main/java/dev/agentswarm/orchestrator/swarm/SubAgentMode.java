package dev.agentswarm.orchestrator.swarm;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** What kind of agent a sub-task runs as (seed 000's modes); each has its own system prompt. */
public enum SubAgentMode {
    /** Multi-hop retrieval with citations. */
    SEARCH,
    /** Write, run and debug code in the sandbox. */
    CODING,
    /** A general tool-using agent. */
    GENERAL,
    /** An orchestrator of its own: it splits its sub-task further, up to the swarm's depth limit. */
    ORCHESTRATOR;

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<SubAgentMode> parse(String name) {
        return Arrays.stream(values()).filter(m -> m.wire().equals(name)).findFirst();
    }
}
