package dev.agentswarm.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.app.Main;
import dev.agentswarm.core.json.Json;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code bench generate --model DIR} and {@code bench learner --model DIR} on a tiny random Qwen3
 * checkpoint written by the policy module's numpy reference (policy/src/test/python/hf_checkpoint.py,
 * skipped without a Python that has numpy, failed instead where AGENTSWARM_REQUIRE_PYTHON_NUMPY=1):
 * the JSON keys each reports, and the log-prob checksum that the PyTorch reference in
 * bench/pytorch-ref-qwen3 prints, here against the numpy reference's float64 log-probs.
 */
class HfModelBenchTest {

    private static final Path SCRIPT = Path.of("..", "policy", "src", "test", "python", "hf_checkpoint.py");

    @TempDir
    static Path dir;

    static Path model;

    @BeforeAll
    static void checkpoint() throws Exception {
        model = dir.resolve("qwen3-tiny");
        // Grouped-query attention, head_dim apart from hidden / heads, q/k norms, an untied head.
        python("make", "--dir", model.toString(), "--family", "qwen3", "--hidden", "64", "--layers", "2", "--heads", "4",
                "--kv-heads", "2", "--head-dim", "24", "--ffn", "96", "--vocab", "300", "--no-tie", "--dtype", "bf16",
                "--seed", "5");
    }

    @Test
    void generateOnAFolderReportsThroughputLoadAndTheChecksum() throws Exception {
        JsonNode j = swarm("bench", "generate", "--model", model.toString(), "--prompt", "4", "--tokens", "6",
                "--concurrency", "1,2", "--runs", "1", "--warmup-rounds", "1", "--no-recompute", "--json");
        for (String key : List.of("model", "family", "parameters", "load_ms", "rss_bytes_after_load", "logprob_checksum",
                "prompt_tokens", "new_tokens", "tokens_per_s", "kv_cache_bytes", "weights_bytes", "rss_bytes_serving_2")) {
            assertTrue(j.has(key), key + " missing from " + j);
        }
        assertEquals("Qwen3ForCausalLM", j.get("family").asText());
        assertEquals(1, j.get("warmup_rounds").asInt());
        assertTrue(j.get("tokens_per_s").get("1").asDouble() > 0 && j.get("tokens_per_s").get("2").asDouble() > 0, j.toString());
        // 2 slots × 2 layers × K and V × context 32 (the checksum's length; the run needs 10) × 2 kv heads × head_dim 24 × fp32.
        assertEquals(2L * 2 * 2 * 32 * 2 * 24 * 4, j.get("kv_cache_bytes").asLong());
        assertEquals(referenceChecksum(), j.get("logprob_checksum").asDouble(), 1e-3);

        JsonNode load = swarm("bench", "generate", "--model", model.toString(), "--load-only", "--json");
        assertTrue(load.has("load_ms") && load.has("logprob_checksum") && !load.has("tokens_per_s"), load.toString());
    }

    @Test
    void learnerOnAFolderTimesFullFineTuningSteps() throws Exception {
        JsonNode j = swarm("bench", "learner", "--model", model.toString(), "--batch", "8", "--generations", "4", "--seq", "16",
                "--steps", "2", "--warmup", "1", "--json");
        for (String key : List.of("model", "family", "params", "batch", "seq", "load_ms", "logprob_checksum", "tuning",
                "generations", "completion_tokens", "step_ms_median", "step_ms_min", "step_ms_max", "tokens_per_s", "gflops",
                "matmul_gflops", "matmul_fraction")) {
            assertTrue(j.has(key), key + " missing from " + j);
        }
        assertEquals("full", j.get("tuning").asText());
        assertTrue(j.get("step_ms_median").asDouble() > 0, j.toString());
        assertTrue(!j.has("weight_swap_ms"), "the swap comparison is the presets', skipped with --model");
        assertEquals(referenceChecksum(), j.get("logprob_checksum").asDouble(), 1e-3);
    }

    @Test
    void learnerWithLoraTrainsOnlyTheAdapter() throws Exception {
        JsonNode full = swarm("bench", "learner", "--model", model.toString(), "--batch", "8", "--generations", "4", "--seq", "16",
                "--steps", "1", "--warmup", "1", "--json");
        JsonNode lora = swarm("bench", "learner", "--model", model.toString(), "--tuning", "lora", "--batch", "8", "--generations", "4",
                "--seq", "16", "--steps", "1", "--warmup", "1", "--json");
        assertEquals("lora", lora.get("tuning").asText());
        long adapter = lora.get("trained_parameters").asLong();
        assertTrue(adapter > 0 && adapter < full.get("trained_parameters").asLong() / 2, "an adapter is a fraction of the model: " + adapter);
        assertTrue(lora.get("step_ms_median").asDouble() > 0, lora.toString());
    }

    /** The numpy reference's float64 sum of log-probs over the checksum sequence. */
    private static double referenceChecksum() throws Exception {
        StringBuilder ids = new StringBuilder();
        for (long id : BenchModel.checksumIds(300)) ids.append(ids.length() == 0 ? "" : ",").append(id);
        JsonNode out = Json.parse(python(List.of("logprobs", "--dir", model.toString()), "{\"ids\":[" + ids + "]}\n").strip());
        double sum = 0;
        for (JsonNode v : out.get("logprobs")) if (!v.isNull()) sum += v.asDouble();
        return sum;
    }

    private static JsonNode swarm(String... args) throws Exception {
        PrintStream oldOut = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringWriter err = new StringWriter();
        int exit;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            CommandLine cl = Main.commandLine();
            cl.setErr(new PrintWriter(err, true));
            exit = cl.execute(args);
        } finally {
            System.setOut(oldOut);
        }
        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, exit, text + err);
        String[] lines = text.strip().split("\n");
        return Json.parse(lines[lines.length - 1]);
    }

    private static String python(String... args) throws Exception {
        return python(List.of(args), "");
    }

    private static String python(List<String> args, String stdin) throws Exception {
        String python = findPython();
        List<String> cmd = new ArrayList<>(List.of(python, SCRIPT.toString()));
        cmd.addAll(args);
        Path outFile = Files.createTempFile(dir, "py", ".out");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(outFile.toFile()).start();
        p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            fail("hf_checkpoint.py " + args + " took over 5 minutes");
        }
        String out = Files.readString(outFile);
        if (p.exitValue() != 0) fail("hf_checkpoint.py " + args + " failed: " + out);
        return out;
    }

    private static String findPython() throws IOException, InterruptedException {
        for (String candidate : List.of("/usr/bin/python3", "python3")) {
            try {
                Process p = new ProcessBuilder(candidate, "-c", "import numpy").redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                if (p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0) return candidate;
            } catch (IOException e) {
                // not there: the next one
            }
        }
        String why = "no Python 3 with numpy: apt-get install python3-numpy";
        if ("1".equals(System.getenv("AGENTSWARM_REQUIRE_PYTHON_NUMPY"))) fail("AGENTSWARM_REQUIRE_PYTHON_NUMPY=1 but " + why);
        Assumptions.abort(why + "; skipping the Hugging Face bench tests");
        throw new AssertionError("unreachable");
    }
}
