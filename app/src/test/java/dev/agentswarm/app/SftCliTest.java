package dev.agentswarm.app;

import static dev.agentswarm.app.CliTest.swarm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** swarm sft and swarm bench sft, in-process on the tiny model. */
class SftCliTest {

    @Test
    void makesASampleTrainsOnItAndResumes(@TempDir Path dir) throws Exception {
        Path data = dir.resolve("data.jsonl");
        CliTest.Result sample = swarm("sft", "--make-sample", data.toString(), "--n", "24", "--json");
        assertEquals(0, sample.exit(), sample.err());
        assertEquals(24, Files.readAllLines(data).size());
        Path run = dir.resolve("run");
        Path conf = dir.resolve("sft.conf");
        Files.writeString(conf, "agentswarm.sft { data = \"" + data + "\", model { preset = tiny, vocab = 512, context = 512 },"
                + " seq-len = 512, micro-batch = 4, max-steps = 3, warmup-steps = 1, run-dir = \"" + run + "\" }");
        CliTest.Result first = swarm("sft", "--config", conf.toString(), "--json");
        assertEquals(0, first.exit(), first.err());
        JsonNode j = first.json();
        assertEquals(3, j.get("steps").asInt());
        assertTrue(j.get("final_loss").asDouble() > 0);
        assertTrue(first.out().contains("checkpoints: " + run.resolve("checkpoints")), first.out());

        CliTest.Result resumed = swarm("sft", "--resume", run.toString(), "--max-steps", "4", "--json");
        assertEquals(0, resumed.exit(), resumed.err());
        assertEquals(1, resumed.json().get("steps").asInt());
        assertEquals(4, resumed.json().get("last_step").asInt());
        assertEquals("step-4", Files.readString(run.resolve("checkpoints/latest")).trim());
    }

    @Test
    void aBadConfigExitsWithTwoAndNamesTheKey(@TempDir Path dir) throws Exception {
        Path conf = dir.resolve("bad.conf");
        Files.writeString(conf, "agentswarm.sft { data = x.jsonl, grad-accum = 0 }");
        CliTest.Result r = swarm("sft", "--config", conf.toString());
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("agentswarm.sft.grad-accum must be ≥ 1"), r.err());
        assertEquals(2, swarm("sft").exit());
    }

    @Test
    void benchReportsThroughputAndTheMatmulFraction() throws Exception {
        CliTest.Result r = swarm("bench", "sft", "--preset", "tiny", "--batch", "2", "--seq", "32", "--steps", "2",
                "--warmup", "1", "--json");
        assertEquals(0, r.exit(), r.err());
        JsonNode j = r.json();
        assertTrue(j.get("tokens_per_s").asDouble() > 0, j.toString());
        assertTrue(j.get("matmul_gflops").asDouble() > 0, j.toString());
        assertTrue(j.get("matmul_fraction").asDouble() > 0, j.toString());
    }
}
