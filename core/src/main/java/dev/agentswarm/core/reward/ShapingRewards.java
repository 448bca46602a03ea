package dev.agentswarm.core.reward;

/**
 * The small shaping terms the seeds add to an outcome reward, each a pure function with its
 * parameters explicit (the suite reads them from its HOCON block).
 */
public final class ShapingRewards {

    private ShapingRewards() {}

    /**
     * DAPO's soft overlong punishment (verl's {@code overlong_buffer.len} / {@code penalty_factor},
     * seed 002's buffer 3000 and factor 1.0): 0 up to {@code maxLength − buffer} tokens, then a
     * linear ramp to {@code −factor} at {@code maxLength}, and {@code −factor} beyond.
     */
    public static double overlongPenalty(int length, int maxLength, int buffer, double factor) {
        if (buffer <= 0 || buffer > maxLength) {
            throw new IllegalArgumentException("overlong-buffer-len must be in 1.." + maxLength + ", got " + buffer);
        }
        if (factor < 0) throw new IllegalArgumentException("overlong-penalty-factor must be >= 0, got " + factor);
        int free = maxLength - buffer;
        if (length <= free) return 0.0;
        if (length > maxLength) return -factor;
        return (double) (free - length) / buffer * factor;
    }

    /**
     * Seed 000's efficiency bonus for fewer hops: 1 at or below {@code minimum} tool calls (the hops
     * the task needs), falling linearly to 0 at {@code maximum}; 0 for an episode that made none (it
     * cannot have searched its way to the answer).
     */
    public static double efficiency(int toolCalls, int minimum, int maximum) {
        if (minimum < 1 || maximum <= minimum) {
            throw new IllegalArgumentException("efficiency needs 1 <= minimum < maximum, got " + minimum + ".." + maximum);
        }
        if (toolCalls == 0) return 0.0;
        if (toolCalls <= minimum) return 1.0;
        if (toolCalls >= maximum) return 0.0;
        return (double) (maximum - toolCalls) / (maximum - minimum);
    }

    /**
     * A 0/1 tool-use component after seed 002's tool call reward: paid for trying a tool whether or
     * not the answer is right, so a policy that has stopped calling tools still finds the gradient
     * back to them. 1 when at least one call was made and parsed, else 0; {@code successfulOnly} pays
     * only for calls that ran without an error. {@link ToolCallReward} is the recipe's own form.
     */
    public static double toolCall(int toolCalls, int toolSuccesses, boolean successfulOnly) {
        return (successfulOnly ? toolSuccesses : toolCalls) > 0 ? 1.0 : 0.0;
    }

    /**
     * The share of assistant turns free of format errors (seed 000 enforces the structure on every
     * turn), and 0 when the episode never gave a final answer. {@link FormatReward} checks one
     * completion's tags.
     */
    public static double format(int assistantTurns, int turnsWithFormatErrors, boolean answered) {
        if (!answered || assistantTurns <= 0) return 0.0;
        return Math.max(0.0, 1.0 - (double) turnsWithFormatErrors / assistantTurns);
    }
}
