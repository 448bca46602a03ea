package dev.agentswarm.orchestrator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.protocol.InfraFailure;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunReportTest {

    private final InfraFailureCounts infra = new InfraFailureCounts(new InfraMeters(new SimpleMeterRegistry()));
    private final RunReport report = new RunReport(infra);

    @Test
    void anUpdateLineHoldsTheRunsCountsThenTheLearnersMetrics() {
        report.episodeTaken();
        report.episodeTaken();
        report.episodeTaken();
        report.batchTaken(new GroupLedger.Batch(List.of(), 2, 1));
        report.batchTaken(new GroupLedger.Batch(List.of(), 1, 0));
        infra.retried(InfraFailure.CRASHED);
        Map<String, Double> learner = new LinkedHashMap<>();
        learner.put("loss", 0.5);
        learner.put("reward_mean", 0.25);
        ObjectNode line = report.updateLine(4, 5, true, 6, 1.5, learner);
        assertEquals(List.of("step", "version", "published", "episodes", "stale_dropped", "uninformative_dropped", "inflight",
                "infra_retried", "infra_retried_crashed", "groups_dropped_infra", "wall_s", "trajectories_sync_ms", "loss", "reward_mean"),
                InfraFailureCountsTest.keys(line));
        assertEquals(4, line.get("step").asLong());
        assertEquals(5, line.get("version").asLong());
        assertTrue(line.get("published").asBoolean());
        assertEquals(3, line.get("episodes").asLong());
        assertEquals(3, line.get("stale_dropped").asLong());
        assertEquals(1, line.get("uninformative_dropped").asLong());
        assertEquals(6, line.get("inflight").asInt());
        assertEquals(1, line.get("infra_retried").asLong());
        assertTrue(line.get("wall_s").asDouble() >= 0);
        assertEquals(1.5, line.get("trajectories_sync_ms").asDouble());
        assertEquals(0.25, line.get("reward_mean").asDouble());
    }

    @Test
    void aRefusedBatchsLineSaysWhichAfterWhatStepAndWhy() {
        ObjectNode line = report.refusedLine(7, 9, "no trainable tokens");
        assertEquals(List.of("step", "batch", "error"), InfraFailureCountsTest.keys(line));
        assertEquals(7, line.get("step").asLong());
        assertEquals(9, line.get("batch").asLong());
        assertEquals("no trainable tokens", line.get("error").asText());
    }

    @Test
    void theSummaryKeepsTheFirstAndLatestUpdateAndTheRunsCounts() {
        report.updated(3, Map.of("loss", 1.0));
        report.updated(4, Map.of("loss", 0.75));
        report.updated(5, Map.of("loss", 0.5));
        report.episodeTaken();
        report.resent();
        report.resent();
        report.retrained(3);
        infra.retried(InfraFailure.SCORER_FAILED);
        infra.dropped(InfraFailure.SCORER_FAILED);
        infra.dropped(InfraFailure.NODE_LOST);
        RolloutCoordinator.Summary s = report.summary(5, 8, 12, "why");
        assertEquals(5, s.steps());
        assertEquals(8, s.version());
        assertEquals(12, s.cursor());
        assertEquals("why", s.error());
        assertEquals(3, s.firstStep());
        assertEquals(Map.of("loss", 1.0), s.first());
        assertEquals(Map.of("loss", 0.5), s.last());
        assertEquals(1, s.episodes());
        assertEquals(2, s.resent());
        assertEquals(3, s.retrained());
        assertEquals(1, s.infraRetried());
        assertEquals(2, s.groupsDroppedInfra());
        assertTrue(s.wallSeconds() >= 0);
    }

    @Test
    void aRunWithoutAnUpdateHasNoFirstOrLastMetrics() {
        RolloutCoordinator.Summary s = report.summary(0, 0, 0, "the learner stopped");
        assertEquals(Map.of(), s.first());
        assertEquals(Map.of(), s.last());
        assertEquals(0, s.firstStep());
    }
}
