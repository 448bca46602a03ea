package dev.agentswarm.app;

import static dev.agentswarm.app.CliTest.swarm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.policy.model.ModelWeights;
import dev.agentswarm.policy.model.SafetensorsFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** swarm dpo: TRL preference pairs from a file, in-process on the tiny model. */
class DpoCliTest {

    private static String pair(String question, String chosen, String rejected) {
        return "{\"prompt\": [{\"role\": \"user\", \"content\": \"" + question + "\"}], \"chosen\": [{\"role\": \"assistant\", \"content\": \""
                + chosen + "\"}], \"rejected\": [{\"role\": \"assistant\", \"content\": \"" + rejected + "\"}]}";
    }

    @Test
    void trainsOnAPairsFileAndWritesItsMetricsAndWeights(@TempDir Path dir) throws Exception {
        Path pairs = dir.resolve("pairs.jsonl");
        Files.write(pairs, List.of(pair("2+2?", "4", "Well, let me see. 4"), pair("3+3?", "6", "Hmm. 7"),
                pair("5*2?", "10", "Okay so 10"), pair("9-1?", "8", "I think 8, maybe")));
        Path conf = dir.resolve("dpo.conf");
        Files.writeString(conf, "agentswarm.policy.embedded.model { preset = tiny, context = 256 }\n"
                + "agentswarm.learner.dpo { steps = 3, pairs-per-step = 2, pairs-per-pass = 2, learning-rate = 1e-3, rpo-alpha = 1.0 }");
        Path run = dir.resolve("run");
        CliTest.Result r = swarm("dpo", "--pairs", pairs.toString(), "--config", conf.toString(), "--run-dir", run.toString(), "--json");
        assertEquals(0, r.exit(), r.err());
        assertEquals(4, r.json().get("pairs").asInt());
        assertEquals(3, r.json().get("steps").asInt());
        List<String> lines = Files.readAllLines(run.resolve("metrics.jsonl"));
        assertEquals(3, lines.size(), "one line a step");
        for (String line : lines) {
            assertTrue(dev.agentswarm.core.json.Json.parse(line).path("nll").asDouble() > 0, "rpo-alpha's NLL is logged: " + line);
        }
        assertEquals(3, ModelWeights.versionOf(SafetensorsFile.read(run.resolve("model.safetensors"))), "the start's version 0 plus 3 steps");
    }

    @Test
    void aMissingOrMalformedPairsFileIsRefusedByName(@TempDir Path dir) throws Exception {
        CliTest.Result missing = swarm("dpo", "--pairs", dir.resolve("none.jsonl").toString());
        assertEquals(2, missing.exit());
        assertTrue(missing.err().contains("none.jsonl does not exist"), missing.err());
        Path bad = dir.resolve("bad.jsonl");
        Files.write(bad, List.of("{\"prompt\": \"2+2?\", \"chosen\": \"4\"}"));
        CliTest.Result malformed = swarm("dpo", "--pairs", bad.toString(), "--run-dir", dir.resolve("run").toString());
        assertEquals(2, malformed.exit());
        assertTrue(malformed.err().contains("bad.jsonl"), malformed.err());
    }
}
