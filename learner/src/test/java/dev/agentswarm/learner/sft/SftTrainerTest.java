package dev.agentswarm.learner.sft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.learner.data.Conversation;
import dev.agentswarm.policy.model.ModelWeights;
import dev.agentswarm.policy.model.SafetensorsFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SftTrainerTest {

    private static final SftTrainer.Listener QUIET = new SftTrainer.Listener() {};

    private static Path data(Path dir, String name, int n, int offset) throws Exception {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int a = 3 * (i + offset), b = 7 + i;
            lines.add(Json.write(new Conversation(List.of(Message.user(a + "+" + b + "?"),
                    Message.assistant(String.valueOf(a + b))), List.of()).toHuggingFace()));
        }
        return Files.write(dir.resolve(name), lines);
    }

    private static SftConfig config(Path dir, String runDir, String extra) throws Exception {
        Path train = data(dir, "train.jsonl", 24, 0);
        Path eval = data(dir, "eval.jsonl", 6, 100);
        return SftConfig.fromConfig(ConfigFactory.parseString("agentswarm.sft { data = \"" + train + "\", eval-data = \"" + eval
                + "\", model.preset = tiny, seq-len = 64, micro-batch = 4, grad-accum = 2, lr = 3e-3, min-lr = 3e-4,"
                + " warmup-steps = 2, max-steps = 6, eval-every = 3, checkpoint-every = 2, run-dir = \""
                + dir.resolve(runDir) + "\"" + extra + " }").withFallback(ConfigFactory.defaultReference()));
    }

    @Test
    void aRunCutInTwoAndResumedEndsWithTheWeightsOfAnUncutOne(@TempDir Path dir) throws Exception {
        SftConfig straightConfig = config(dir, "straight", "");
        SftTrainer.Summary straight;
        try (SftTrainer t = SftTrainer.start(straightConfig, s -> {})) {
            straight = t.train(QUIET);
        }
        assertEquals(6, straight.lastStep());
        assertTrue(straight.lastLoss() < straight.firstLoss(), straight.firstLoss() + " → " + straight.lastLoss());

        SftConfig cutConfig = config(dir, "cut", ", checkpoint-every = 0, keep-checkpoints = 1");
        try (SftTrainer t = SftTrainer.start(cutConfig, s -> {})) {
            SftTrainer.Summary half = t.train(3, QUIET);
            assertEquals(3, half.lastStep());
            assertEquals(dir.resolve("cut/checkpoints/step-3"), half.lastCheckpoint());
        }
        SftTrainer.Summary resumed;
        try (SftTrainer t = SftTrainer.resume(SftTrainer.configOf(dir.resolve("cut")), s -> {})) {
            assertEquals(3, t.state().step());
            resumed = t.train(QUIET);
        }
        assertEquals(4, resumed.firstStep() + 1);
        assertEquals(straight.lastLoss(), resumed.lastLoss(), 1e-6);
        assertEquals(straight.evalLoss(), resumed.evalLoss(), 1e-6);

        SafetensorsFile.Contents a = SafetensorsFile.read(dir.resolve("straight/checkpoints/step-6/model.safetensors"));
        SafetensorsFile.Contents b = SafetensorsFile.read(dir.resolve("cut/checkpoints/step-6/model.safetensors"));
        assertEquals("6", b.metadata().get(ModelWeights.VERSION_KEY));
        for (Map.Entry<String, SafetensorsFile.Tensor> e : a.tensors().entrySet()) {
            assertArrayEquals(floats(e.getValue()), floats(b.tensors().get(e.getKey())), 1e-6f, e.getKey());
        }

        // metrics.jsonl: one line per step, never a step twice, eval lines at 3 and 6.
        List<JsonNode> lines = new ArrayList<>();
        for (String l : Files.readAllLines(dir.resolve("cut/metrics.jsonl"))) lines.add(Json.parse(l));
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L), lines.stream().filter(l -> l.has("loss")).map(l -> l.get("step").asLong()).toList());
        assertEquals(List.of(3L, 6L), lines.stream().filter(l -> l.has("eval_loss")).map(l -> l.get("step").asLong()).toList());
        JsonNode first = lines.get(0);
        for (String key : List.of("lr", "grad_norm", "tokens", "tokens_per_s", "elapsed")) assertTrue(first.has(key), key);

        try (var kept = Files.list(dir.resolve("cut/checkpoints"))) {
            assertEquals(List.of("latest", "step-6"), kept.map(p -> p.getFileName().toString()).sorted().toList(),
                    "keep-checkpoints = 1, read back from the run's sft.conf when it resumed");
        }
        assertEquals("step-6", Files.readString(dir.resolve("straight/checkpoints/latest")).trim());
        assertTrue(Files.exists(dir.resolve("straight/checkpoints/step-2/optimizer.safetensors")));
        JsonNode state = Json.parse(Files.readString(dir.resolve("straight/checkpoints/step-6/state.json")));
        assertEquals(6, state.get("step").asInt());
        // 6 steps × 8 rows = two full epochs of 24: the cursor stands at the end of epoch 1.
        assertEquals(1, state.get("data_cursor").get("epoch").asInt());
        assertEquals(24, state.get("data_cursor").get("index").asInt());
        assertEquals("tiny", state.get("config").get("agentswarm").get("sft").get("model").get("preset").asText());
        assertTrue(Files.exists(dir.resolve("straight/tokenizer.json")));
    }

    @Test
    void startingOverAnExistingRunIsRefused(@TempDir Path dir) throws Exception {
        SftConfig c = config(dir, "run", ", max-steps = 1");
        try (SftTrainer t = SftTrainer.start(c, s -> {})) {
            t.train(QUIET);
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SftTrainer.start(c, s -> {}));
        assertTrue(e.getMessage().contains("--resume"), e.getMessage());
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> SftTrainer.resume(config(dir, "empty", ""), s -> {}));
        assertTrue(none.getMessage().contains("no checkpoint"), none.getMessage());
    }

    private static float[] floats(SafetensorsFile.Tensor t) {
        float[] out = new float[(int) t.elements()];
        t.data().duplicate().order(java.nio.ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(out);
        return out;
    }
}
