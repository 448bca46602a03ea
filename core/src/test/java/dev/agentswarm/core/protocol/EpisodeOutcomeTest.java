package dev.agentswarm.core.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.json.Json;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EpisodeOutcomeTest {

    private static final RewardBreakdown ONE = new RewardBreakdown(Map.of("correct", 1.0), 1.0);

    @Test
    void answersThePoliciesOwnFailuresAndTheInfrastructuresAreTold() {
        assertEquals(EpisodeOutcome.ANSWERED, Trajectory.notRun("e", "g", "t", StopReason.FINAL_ANSWER, null).outcome());
        assertEquals(EpisodeOutcome.ANSWERED, Trajectory.notRun("e", "g", "t", StopReason.USER_STOP, null).outcome());
        for (StopReason own : new StopReason[] {StopReason.MAX_TURNS, StopReason.TOKEN_BUDGET, StopReason.TASK_LIMIT, StopReason.DEADLINE,
                StopReason.POLICY_ERROR}) {
            Trajectory t = Trajectory.notRun("e", "g", "t", own, null);
            assertEquals(EpisodeOutcome.POLICY_FAILURE, t.outcome(), own.name());
            assertNull(t.infraFailure());
        }
        Trajectory crashed = Trajectory.notRun("e", "g", "t", StopReason.CRASHED, "its actor failed");
        assertEquals(InfraFailure.CRASHED, crashed.infraFailure(), "a crash is never the policy's answer");
        assertEquals(EpisodeOutcome.INFRA_FAILURE, crashed.outcome());
    }

    @Test
    void aFailedTrajectoryLosesItsRewardKeepsItsErrorAndSaysItsCauseOnTheWire() throws Exception {
        Trajectory scored = Trajectory.notRun("e", "g", "t", StopReason.FINAL_ANSWER, "slow").withReward(ONE);
        Trajectory failed = scored.failedBy(InfraFailure.SCORER_FAILED, "reward failed: timeout");
        assertNull(failed.reward());
        assertEquals("slow; reward failed: timeout", failed.error());
        assertEquals(EpisodeOutcome.INFRA_FAILURE, failed.outcome());
        String json = Json.write(failed);
        assertTrue(json.contains("\"infra\":\"SCORER_FAILED\""), json);
        Trajectory back = Json.MAPPER.readValue(json, Trajectory.class);
        assertEquals(failed, back);
        assertEquals(failed.withoutTimings(), back.withoutTimings(), "kept through its copies");
        assertFalse(Json.write(scored).contains("infra"), "an episode that did not fail writes what it wrote before");
        assertEquals(scored, Json.MAPPER.readValue(Json.write(scored), Trajectory.class));
    }

    @Test
    void aToolsInfrastructureMapsToItsCause() {
        assertEquals(InfraFailure.SANDBOX_UNAVAILABLE, InfraFailure.ofTool(ToolStatus.SANDBOX_UNAVAILABLE));
        assertEquals(InfraFailure.MCP_SERVER_DOWN, InfraFailure.ofTool(ToolStatus.SERVER_DOWN));
        for (ToolStatus s : new ToolStatus[] {ToolStatus.OK, ToolStatus.ERROR, ToolStatus.TIMEOUT, ToolStatus.INVALID_ARGUMENTS}) {
            assertNull(InfraFailure.ofTool(s), s + " is the model's to read");
        }
        assertEquals("mcp_server_down", InfraFailure.MCP_SERVER_DOWN.label());
    }
}
