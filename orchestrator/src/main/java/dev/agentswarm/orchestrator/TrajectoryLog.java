package dev.agentswarm.orchestrator;

import dev.agentswarm.core.json.MetricsLog;
import dev.agentswarm.core.protocol.Trajectory;

/**
 * {@code trajectories.jsonl} as a training run writes it: every answer appended (flushed) as it comes,
 * and one fsync per batch before the learner sees it, a group commit whose time adds up here because
 * {@code metrics.jsonl} reports what durability costs ({@code trajectories_sync_ms}).
 */
final class TrajectoryLog {

    private final MetricsLog log;
    private long syncNanos;

    TrajectoryLog(MetricsLog log) {
        this.log = log;
    }

    /** Appends one answer, flushed before this returns; throws as {@link MetricsLog#append} does. */
    void append(Trajectory t) {
        log.append(t);
    }

    /**
     * Forces every answer appended so far to the disk and adds the time it took; a sync that throws adds
     * nothing.
     */
    void sync() {
        long start = System.nanoTime();
        log.sync();
        syncNanos += System.nanoTime() - start;
    }

    /** Time spent in {@link #sync} so far, in milliseconds. */
    double syncMillis() {
        return syncNanos / 1e6;
    }
}
