package dev.agentswarm.core.protocol;

import dev.agentswarm.core.CborSerializable;

/** When a turn started (nanoseconds after the episode started) and how long it took. */
public record Timing(long startNanos, long durationNanos) implements CborSerializable {
    public static final Timing NONE = new Timing(0, 0);
}
