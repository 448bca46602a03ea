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
import dev.agentswarm.learner.sft.Checkpoints;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole asynchronous loop on one node with the tiny embedded model: episodes on the workers,
 * groups to the learner, its weights back to the policy server while sampling goes on.
 */
class TrainingTest {

    private static Config tiny(Path runDir, int steps) {
        return ConfigFactory.parseString("""
                agentswarm.policy.embedded.model { preset = tiny, context = 1536 }
                agentswarm.episode { max-turns = 1, sampling.max-tokens = 12 }
                agentswarm.learner.grpo { num-generations = 2, learning-rate = 1e-3, dynamic-sampling = false }
                agentswarm.train { steps = %d, groups-per-step = 1, max-inflight = 4, checkpoint-every = 1, run-dir = "%s" }
                """.formatted(steps, runDir)).withFallback(SwarmNode.loadConfig(null));
    }

    @Test
    void updatesReachThePolicyServerAndEveryAnswerIsOnDisk(@TempDir Path dir) throws Exception {
        Training.Outcome o = Training.run(ConfigFactory.parseString("agentswarm.train.keep-checkpoints = 2")
                .withFallback(tiny(dir.resolve("run"), 3)));
        assertNull(o.summary().error());
        assertEquals(3, o.summary().steps());
        try (var saved = Files.list(Checkpoints.folder(o.runDir()))) {
            assertEquals(List.of("latest", "step-2", "step-3"), saved.map(p -> p.getFileName().toString()).sorted().toList(),
                    "a checkpoint every step, the two newest kept");
        }
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

    @Test
    void swarmTrainingGivesTheLearnerOrchestratorTrajectoriesWithTheParlReward(@TempDir Path dir) throws Exception {
        Config c = ConfigFactory.parseString("""
                agentswarm.train.swarm = true
                agentswarm.swarm.orchestrator.max-turns = 1
                # the tiny model's context holds the orchestrator's prompt, not the tool schemas besides
                agentswarm.episode.tools-in-prompt = false
                """).withFallback(tiny(dir.resolve("run"), 2)).resolve();
        Training.Outcome o = Training.run(c);
        assertNull(o.summary().error());
        assertEquals(2, o.summary().steps());
        List<String> trajectories = Files.readAllLines(o.runDir().resolve("trajectories.jsonl"));
        assertEquals(o.summary().episodes(), trajectories.size(), "every accepted answer is on disk");
        for (String line : trajectories) {
            JsonNode t = Json.parse(line);
            JsonNode reward = t.get("reward").get("components");
            for (String k : List.of("perf", "parallel", "finish", "lambda_parallel", "critical_steps")) assertTrue(reward.has(k), k + " in " + reward);
            String system = t.get("prompt").get(0).get("content").asText();
            assertTrue(system.contains("orchestrator of an agent swarm") && system.contains("spawn_subagents"),
                    "the orchestrator's episode, with its prompt and tools: " + system.substring(0, Math.min(200, system.length())));
        }
    }

    @Test
    void aFolderThatExistsIsAnotherRunsAndANewRunIsRefusedThere(@TempDir Path dir) throws Exception {
        Path run = Files.createDirectories(dir.resolve("run"));
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> Training.run(tiny(run, 1)));
        assertTrue(e.getMessage().contains("exists already") && e.getMessage().contains("--resume"), e.getMessage());
        assertEquals(List.of(), Files.list(run).toList(), "nothing written into the other run's folder");
    }

    @Test
    void aRunThatDiedAfterItsLastCheckpointResumesFromItWithoutLosingOrRepeatingAnything(@TempDir Path dir) throws Exception {
        Path run = dir.resolve("run");
        String key = "sk-never-on-disk-" + System.nanoTime();
        Training.run(ConfigFactory.parseString("agentswarm.policy.openai.api-key = \"" + key + "\"").withFallback(tiny(run, 2)));
        String saved = Files.readString(run.resolve(Training.CONFIG_FILE));
        assertTrue(!saved.contains(key) && saved.contains("${?OPENAI_API_KEY}"), "the saved configuration names the key's variable: " + saved);
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(run.resolve(Training.CONFIG_FILE))));
        assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(run)));
        assertEquals("step-2", Checkpoints.latest(run).orElseThrow().getFileName().toString(), "the last update is always saved");
        // The process died after step 2 was trained and logged but before its checkpoint was complete.
        Files.writeString(run.resolve("checkpoints").resolve("latest"), "step-1\n");
        long before = Files.readAllLines(run.resolve("trajectories.jsonl")).size();
        assertTrue(Files.isRegularFile(run.resolve(Training.CONFIG_FILE)), "the run saves its configuration");
        // A resumed run keeps its own settings: a different suite on the command line is not taken, only the steps.
        Config elsewhere = tiny(run, 3).withValue("agentswarm.train.suite", com.typesafe.config.ConfigValueFactory.fromAnyRef("plugins"));
        Training.Outcome resumed = Training.run(elsewhere, run);
        assertEquals(3, resumed.summary().steps());
        assertEquals(3, resumed.summary().version(), "version 1 from the checkpoint, then 2 and 3 again");
        List<Long> steps = new ArrayList<>();
        for (String line : Files.readAllLines(run.resolve("metrics.jsonl"))) steps.add(Json.parse(line).get("step").asLong());
        assertEquals(List.of(1L, 2L, 3L), steps, "step 2 redone once, not logged twice");
        List<String> all = Files.readAllLines(run.resolve("trajectories.jsonl"));
        assertTrue(all.size() > before, "accepted trajectories kept, new ones added");
        for (String line : all) assertTrue(Json.parse(line).get("taskId").asText().startsWith("arithmetic"), line);
        IllegalArgumentException done = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> Training.run(tiny(run, 3), run));
        assertTrue(done.getMessage().contains("at step 3 already"), done.getMessage());
    }
}
