package dev.agentswarm.environments;

import dev.agentswarm.core.protocol.EpisodeStats;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.reward.ShapingRewards;

/**
 * The facts of a finished episode every suite's reward reads: its final answer (null unless it
 * finished with one), how many assistant turns and tool calls it made, how many succeeded, how many
 * turns had format errors.
 */
public record EpisodeOutcome(String answer, int assistantTurns, int toolCalls, int toolSuccesses, int formatErrors) {

    public static EpisodeOutcome of(Trajectory t) {
        EpisodeStats s = t.stats();
        String answer = t.stopReason() == StopReason.FINAL_ANSWER ? t.finalAnswer() : null;
        int assistant = t.assistantTurns().size();
        return s == null ? new EpisodeOutcome(answer, assistant, 0, 0, 0)
                : new EpisodeOutcome(answer, assistant, s.toolCalls(), s.toolSuccesses(), s.formatErrors());
    }

    /** Share of assistant turns without format errors; 0 when there is no final answer at all. */
    public double formatScore() {
        return ShapingRewards.format(assistantTurns, formatErrors, answer != null);
    }
}
