package dev.agentswarm.orchestrator;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.protocol.InfraFailure;
import java.util.EnumMap;

/**
 * A training run's infrastructure failures, counted by cause: episodes run again under a new attempt
 * (or, for a lost node, under the same id), groups dropped whole once their retries ran out, and the
 * groups dropped in a row with no answer in between, by which the run decides to stop. The same counts
 * reach {@code metrics.jsonl}, the run's summary and, through {@link InfraMeters}, {@code /metrics}; kept
 * out of the coordinator so that the counting is one thing, tested without an actor system.
 */
final class InfraFailureCounts {

    private final EnumMap<InfraFailure, Long> retried = new EnumMap<>(InfraFailure.class);
    private final EnumMap<InfraFailure, Long> dropped = new EnumMap<>(InfraFailure.class);
    private final InfraMeters meters;
    /** Groups dropped for their infrastructure since the last answer that did not fail. */
    private int droppedInARow;

    InfraFailureCounts(InfraMeters meters) {
        this.meters = meters;
    }

    /** An episode runs again because of its infrastructure. */
    void retried(InfraFailure cause) {
        retried.merge(cause, 1L, Long::sum);
        meters.retried(cause);
    }

    /** A group is dropped whole because of its infrastructure. */
    void dropped(InfraFailure cause) {
        dropped.merge(cause, 1L, Long::sum);
        meters.dropped(cause);
        droppedInARow++;
    }

    /** An answer that did not fail for its infrastructure came: the groups dropped in a row start again from 0. */
    void answered() {
        droppedInARow = 0;
    }

    int droppedInARow() {
        return droppedInARow;
    }

    long retriedTotal() {
        return total(retried);
    }

    long droppedTotal() {
        return total(dropped);
    }

    /** Adds {@code infra_retried} and {@code groups_dropped_infra} to a metrics line, each with its causes. */
    void putInto(ObjectNode line) {
        putByCause(line, "infra_retried", retried);
        putByCause(line, "groups_dropped_infra", dropped);
    }

    private static long total(EnumMap<InfraFailure, Long> counts) {
        return counts.values().stream().mapToLong(Long::longValue).sum();
    }

    /** A count's total and, after it, one key per cause seen: {@code infra_retried}, {@code infra_retried_scorer_failed}, … */
    private static void putByCause(ObjectNode line, String key, EnumMap<InfraFailure, Long> counts) {
        line.put(key, total(counts));
        counts.forEach((cause, n) -> line.put(key + "_" + cause.label(), n));
    }
}
