package dev.agentswarm.app.bench;

import java.util.Arrays;

/**
 * When each policy turn of each measured episode was requested and answered. The runtime's own
 * time for a turn is the gap from one answer to the next request, minus the tool's time:
 * parsing, tool dispatch, observation rendering, context bookkeeping and the actor messages.
 */
final class TurnClock {

    private final int turns;
    private final long[] requested;
    private final long[] answered;

    TurnClock(int episodes, int turns) {
        this.turns = turns;
        this.requested = new long[episodes * turns];
        this.answered = new long[episodes * turns];
    }

    void requested(int episode, int turn, long nanos) {
        requested[episode * turns + turn - 1] = nanos;
    }

    void answered(int episode, int turn, long nanos) {
        answered[episode * turns + turn - 1] = nanos;
    }

    /** Runtime nanoseconds between answer {@code turn} and request {@code turn + 1}, less the tool time. */
    long overheadNanos(int episode, int turn, long toolNanos) {
        int i = episode * turns + turn - 1;
        return requested[i + 1] - answered[i] - toolNanos;
    }

    static double percentileMicros(long[] sorted, double p) {
        if (sorted.length == 0) return 0;
        int i = (int) Math.min(sorted.length - 1, Math.max(0, Math.ceil(p / 100.0 * sorted.length) - 1));
        return sorted[i] / 1e3;
    }

    static long[] sorted(long[] values, int count) {
        long[] s = Arrays.copyOf(values, count);
        Arrays.sort(s);
        return s;
    }
}
