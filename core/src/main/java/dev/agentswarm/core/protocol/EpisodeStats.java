package dev.agentswarm.core.protocol;

import dev.agentswarm.core.CborSerializable;

/** Counts of one episode: what dashboards and rewards read without walking the turns. */
public record EpisodeStats(int turns, int toolCalls, int toolSuccesses, int formatErrors, int promptTokens,
                           int completionTokens, long wallNanos) implements CborSerializable {
    public EpisodeStats withoutTimings() {
        return new EpisodeStats(turns, toolCalls, toolSuccesses, formatErrors, promptTokens, completionTokens, 0);
    }
}
