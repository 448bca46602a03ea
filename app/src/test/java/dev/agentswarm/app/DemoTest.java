package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code swarm demo} end to end on a miniature of its own configuration (the tiny model, a few
 * steps of each stage): every stage runs through the real runtime and leaves its files, and the
 * JSON line has the shape. Whether RL improves on SFT is the demo's full-size measurement,
 * not this test's.
 */
class DemoTest {

    @Test
    void everyStageRunsAndTheReportHasBothStories(@TempDir Path dir) throws Exception {
        Path conf = dir.resolve("mini.conf");
        Files.writeString(conf, """
                agentswarm.demo { demonstrations = 64, heldout-tasks = 8, dpo { tasks = 8, samples = 4, min-gap = 0.05 } }
                agentswarm.policy.embedded.model { preset = tiny, context = 512, vocab = 400 }
                agentswarm.episode.sampling.max-tokens = 48
                agentswarm.sft { max-steps = 6, micro-batch = 8 }
                agentswarm.train { steps = 2, groups-per-step = 2 }
                agentswarm.learner.grpo.num-generations = 4
                agentswarm.learner.dpo { steps = 2, pairs-per-step = 4, pairs-per-pass = 4 }
                """);
        Path run = dir.resolve("run");
        CliTest.Result r = CliTest.swarm("demo", "--config", conf.toString(), "--run-dir", run.toString(), "--json");
        assertEquals(0, r.exit(), r.out() + r.err());

        JsonNode j = r.json();
        assertTrue(j.get("elapsed_s").asDouble() > 0);
        JsonNode stories = j.get("stories");
        assertEquals(2, stories.size());
        JsonNode grpo = stories.get(0);
        assertEquals("grpo-tcr", grpo.get("name").asText());
        assertEquals("arithmetic", grpo.get("suite").asText());
        for (String side : List.of("sft", "rl")) {
            JsonNode h = grpo.get("heldout").get(side);
            for (String k : List.of("pass_rate", "tool_success_rate", "valid_format_rate", "filler_rate", "tokens_per_answer")) {
                assertTrue(h.hasNonNull(k), side + " lacks " + k + ": " + h);
            }
        }
        assertEquals(2, grpo.get("training").get("steps").asInt(), "two GRPO updates");
        JsonNode dpo = stories.get(1);
        assertEquals("dpo-discipline", dpo.get("name").asText());
        assertEquals(2, dpo.get("training").get("steps").asInt());
        assertTrue(dpo.get("training").get("pairs").asInt() > 0);
        // Both stories start from the same SFT evaluation.
        assertEquals(grpo.get("heldout").get("sft"), dpo.get("heldout").get("sft"));

        for (String f : List.of("demonstrations.jsonl", "report.md", "reward-curve.png", "dpo-curve.png", "sft/tokenizer.json",
                "grpo/metrics.jsonl", "grpo/trajectories.jsonl", "dpo/model.safetensors", "dpo/rollouts.jsonl",
                "eval-sft/eval.md", "eval-grpo/eval.json", "eval-dpo/trajectories.jsonl")) {
            assertTrue(Files.size(run.resolve(f)) > 0, f);
        }
        byte[] png = Files.readAllBytes(run.resolve("reward-curve.png"));
        assertEquals((byte) 0x89, png[0]);
        assertEquals('P', png[1], "a PNG file");
        String report = Files.readString(run.resolve("report.md"));
        assertTrue(report.contains("## grpo-tcr") && report.contains("## dpo-discipline") && report.contains("| filler rate |"), report);
        assertTrue(r.out().contains("SFT + GRPO") && r.out().contains("SFT + DPO"), r.out());
    }

    @Test
    void badDemoSettingsAreRefusedByName(@TempDir Path dir) throws Exception {
        Path conf = dir.resolve("bad.conf");
        Files.writeString(conf, "agentswarm.demo.dpo.samples = 1\n");
        CliTest.Result r = CliTest.swarm("demo", "--config", conf.toString(), "--run-dir", dir.resolve("run").toString());
        assertEquals(2, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("agentswarm.demo"), r.err());
    }
}
