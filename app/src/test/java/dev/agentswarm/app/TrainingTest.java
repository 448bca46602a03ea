package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.json.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole asynchronous loop on one node with the tiny embedded model: episodes on the workers,
 * groups to the learner, its weights back to the policy server while sampling goes on.
 */
class TrainingTest {

    @Test
    void updatesReachThePolicyServerAndEveryAnswerIsOnDisk(@TempDir Path dir) throws Exception {
        Config cfg = ConfigFactory.parseString("""
                agentswarm.policy.embedded.model { preset = tiny, context = 1536 }
                agentswarm.episode { max-turns = 1, sampling.max-tokens = 12 }
                agentswarm.learner.grpo { num-generations = 2, learning-rate = 1e-3, dynamic-sampling = false }
                agentswarm.train { steps = 3, groups-per-step = 1, max-inflight = 4, run-dir = "%s" }
                """.formatted(dir.resolve("run"))).withFallback(SwarmNode.loadConfig(null));
        Training.Outcome o = Training.run(cfg);
        assertNull(o.summary().error());
        assertEquals(3, o.summary().steps());
        assertEquals(3, o.summary().version(), "every update published a version");
        List<String> metrics = Files.readAllLines(o.runDir().resolve("metrics.jsonl"));
        assertEquals(3, metrics.size());
        JsonNode last = Json.parse(metrics.get(2));
        assertTrue(last.get("published").asBoolean());
        assertTrue(last.get("tokens").asDouble() > 0);
        List<String> trajectories = Files.readAllLines(o.runDir().resolve("trajectories.jsonl"));
        assertEquals(o.summary().episodes(), trajectories.size(), "every accepted answer is on disk");
        TreeSet<Long> versions = new TreeSet<>();
        for (String line : trajectories) {
            for (JsonNode turn : Json.parse(line).get("turns")) if (turn.has("policyVersion")) versions.add(turn.get("policyVersion").asLong());
        }
        assertTrue(versions.last() >= 1, "completions sampled after an update carry its version: " + versions);
    }
}
