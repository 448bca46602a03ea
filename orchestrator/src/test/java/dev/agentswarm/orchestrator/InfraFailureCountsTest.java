package dev.agentswarm.orchestrator;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.InfraFailure;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class InfraFailureCountsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final InfraFailureCounts counts = new InfraFailureCounts(new InfraMeters(registry));

    static List<String> keys(ObjectNode line) {
        List<String> keys = new ArrayList<>();
        line.fieldNames().forEachRemaining(keys::add);
        return keys;
    }

    @Test
    void eachCountGoesToTheMetricsLineByCauseAfterItsTotal() {
        counts.retried(InfraFailure.NODE_LOST);
        counts.retried(InfraFailure.SCORER_FAILED);
        counts.retried(InfraFailure.SCORER_FAILED);
        counts.dropped(InfraFailure.POLICY_UNAVAILABLE);
        ObjectNode line = Json.object();
        counts.putInto(line);
        assertEquals(List.of("infra_retried", "infra_retried_scorer_failed", "infra_retried_node_lost", "groups_dropped_infra",
                "groups_dropped_infra_policy_unavailable"), keys(line), "causes in their declared order, only those seen");
        assertEquals(3, line.get("infra_retried").asLong());
        assertEquals(2, line.get("infra_retried_scorer_failed").asLong());
        assertEquals(1, line.get("infra_retried_node_lost").asLong());
        assertEquals(1, line.get("groups_dropped_infra").asLong());
        assertEquals(3, counts.retriedTotal());
        assertEquals(1, counts.droppedTotal());
    }

    @Test
    void noFailureYetWritesZeroTotalsOnly() {
        ObjectNode line = Json.object();
        counts.putInto(line);
        assertEquals(List.of("infra_retried", "groups_dropped_infra"), keys(line));
        assertEquals(0, line.get("infra_retried").asLong());
        assertEquals(0, line.get("groups_dropped_infra").asLong());
    }

    @Test
    void theMetersCountTheSameByCause() {
        counts.retried(InfraFailure.CRASHED);
        counts.retried(InfraFailure.CRASHED);
        counts.dropped(InfraFailure.MCP_SERVER_DOWN);
        assertEquals(2.0, registry.get(InfraMeters.RETRIED).tag("cause", "crashed").counter().count());
        assertEquals(1.0, registry.get(InfraMeters.DROPPED).tag("cause", "mcp_server_down").counter().count());
        assertEquals(0.0, registry.get(InfraMeters.DROPPED).tag("cause", "crashed").counter().count());
    }

    @Test
    void groupsDroppedInARowCountUntilAnAnswerThatDidNotFail() {
        counts.dropped(InfraFailure.POLICY_UNAVAILABLE);
        counts.retried(InfraFailure.POLICY_UNAVAILABLE);
        counts.dropped(InfraFailure.SANDBOX_UNAVAILABLE);
        assertEquals(2, counts.droppedInARow(), "a retry is no answer: the row goes on");
        counts.answered();
        assertEquals(0, counts.droppedInARow());
        counts.dropped(InfraFailure.POLICY_UNAVAILABLE);
        assertEquals(1, counts.droppedInARow());
        assertEquals(3, counts.droppedTotal(), "the total is not reset by an answer");
    }
}
