package dev.agentswarm.orchestrator;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import java.util.Map;

/**
 * What a training run reports of itself: the counts written to {@code metrics.jsonl} after each batch
 * the learner answers, and returned in the run's {@link RolloutCoordinator.Summary} when it ends, with
 * the learner's metrics of its first and last update. The coordinator decides what happens; this keeps
 * the tally and shapes the lines, so that their keys and order live in one place, tested directly.
 * Every line carries the step it came after, so a resume keeps the lines of what it keeps.
 */
final class RunReport {

    private final long started = System.nanoTime();
    private final InfraFailureCounts infra;
    private long episodes;
    private long staleDropped;
    private long uninformativeDropped;
    private long resent;
    private long retrained;
    private long firstStep;
    private Map<String, Double> first = Map.of();
    private Map<String, Double> last = Map.of();

    RunReport(InfraFailureCounts infra) {
        this.infra = infra;
    }

    /** An answer was taken (written to {@code trajectories.jsonl}). */
    void episodeTaken() {
        episodes++;
    }

    /** A batch was taken for the learner, with the groups dropped on the way to it. */
    void batchTaken(GroupLedger.Batch b) {
        staleDropped += b.staleDropped();
        uninformativeDropped += b.uninformativeDropped();
    }

    /** An episode was sent again under its id. */
    void resent() {
        resent++;
    }

    /** Batches go to the learner again because it came back from a checkpoint. */
    void retrained(int batches) {
        retrained += batches;
    }

    /** The learner published an update at {@code step}; the first one's metrics and the latest are kept. */
    void updated(long step, Map<String, Double> metrics) {
        if (first.isEmpty()) {
            first = metrics;
            firstStep = step;
        }
        last = metrics;
    }

    /** The {@code metrics.jsonl} line of a batch the learner refused. */
    ObjectNode refusedLine(long step, long batchId, String error) {
        return Json.object().put("step", step).put("batch", batchId).put("error", error);
    }

    /** The {@code metrics.jsonl} line of a batch the learner trained: the run's counts, then the learner's metrics. */
    ObjectNode updateLine(long step, long version, boolean published, int inflight, double trajectoriesSyncMs,
                          Map<String, Double> learnerMetrics) {
        ObjectNode line = Json.object();
        line.put("step", step).put("version", version).put("published", published).put("episodes", episodes)
                .put("stale_dropped", staleDropped).put("uninformative_dropped", uninformativeDropped).put("inflight", inflight);
        infra.putInto(line);
        line.put("wall_s", wallSeconds()).put("trajectories_sync_ms", trajectoriesSyncMs);
        for (Map.Entry<String, Double> e : learnerMetrics.entrySet()) line.put(e.getKey(), e.getValue());
        return line;
    }

    RolloutCoordinator.Summary summary(long steps, long version, long cursor, String error) {
        return new RolloutCoordinator.Summary(steps, version, episodes, staleDropped, resent, cursor, wallSeconds(), error, firstStep,
                first, last, retrained, infra.retriedTotal(), infra.droppedTotal());
    }

    private double wallSeconds() {
        return (System.nanoTime() - started) / 1e9;
    }
}
