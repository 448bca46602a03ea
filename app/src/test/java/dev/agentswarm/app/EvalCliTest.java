package dev.agentswarm.app;

import static dev.agentswarm.app.CliTest.swarm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** swarm eval end to end, in-process: the oracle through the runtime, the tables, the run folder, demonstrations. */
class EvalCliTest {

    @Test
    void theOracleEvaluationWritesTablesTrajectoriesAndDemonstrations(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("run");
        Path demos = dir.resolve("demos.jsonl");
        CliTest.Result r = swarm("eval", "--suite", "plugins", "--policy", "oracle", "--tasks", "6", "--samples", "2",
                "--out", out.toString(), "--demonstrations", demos.toString(), "--json");
        assertEquals(0, r.exit(), r.err());
        JsonNode j = r.json();
        assertEquals(6, j.get("tasks").asInt());
        assertEquals(12, j.get("episodes").asInt());
        assertEquals(0.95, j.get("means").get("plan").asDouble(), 1e-9);
        assertEquals(1.0, j.get("pass_hat_k").get("2").asDouble(), 1e-9);
        assertTrue(r.out().contains("| all |"), r.out());
        assertEquals(12, Files.readAllLines(out.resolve("trajectories.jsonl")).size());
        assertTrue(Files.readString(out.resolve("eval.md")).contains("pass^k"));
        List<String> lines = Files.readAllLines(demos);
        assertEquals(12, lines.size(), "every passing episode is a demonstration");
        JsonNode first = Json.parse(lines.get(0)).get("messages");
        assertEquals("system", first.get(0).get("role").asText());
        assertTrue(first.get(first.size() - 1).get("content").asText().contains("\"plugins\""), "the plan as the model wrote it");
    }

    @Test
    void theCodeSuiteGradesEachSolutionInTheSandboxThroughTheRuntime(@TempDir Path dir) throws Exception {
        CliTest.Result r = swarm("eval", "--suite", "code", "--policy", "oracle", "--tasks", "4", "--samples", "2",
                "--out", dir.resolve("run").toString(), "--json");
        assertEquals(0, r.exit(), r.err());
        JsonNode j = r.json();
        assertEquals(8, j.get("episodes").asInt());
        assertEquals(1.0, j.get("means").get("pass").asDouble(), 1e-9, r.out());
        assertEquals(1.0, j.get("means").get("tests_passed").asDouble(), 1e-9);
        assertEquals(1.0, j.get("means").get("tool_call").asDouble(), 1e-9, "every demonstration ran its code first");
    }

    @Test
    void badInputIsRefusedClearly(@TempDir Path dir) {
        CliTest.Result unknown = swarm("eval", "--suite", "chess", "--policy", "oracle", "--out", dir.toString());
        assertNotEquals(0, unknown.exit());
        assertTrue(unknown.err().contains("unknown suite") && unknown.err().contains("arithmetic"), unknown.err());
        CliTest.Result split = swarm("eval", "--suite", "arithmetic", "--split", "dev", "--policy", "oracle", "--out", dir.toString());
        assertNotEquals(0, split.exit());
        assertTrue(split.err().contains("train or heldout"), split.err());
        CliTest.Result oracleElsewhere = swarm("run", "2+2?", "--policy", "oracle");
        assertNotEquals(0, oracleElsewhere.exit());
        assertTrue(oracleElsewhere.err().contains("swarm eval"), oracleElsewhere.err());
    }
}
