package dev.agentswarm.learner.sft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import dev.agentswarm.learner.optim.AdamW;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.ModelConfig;
import dev.agentswarm.policy.model.ModelWeights;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process killed (SIGKILL, by its pid) while it writes a checkpoint: the run still has one that
 * verifies and loads, the one before the write or the write itself when it had completed.
 */
class CheckpointKillTest {

    /** Each round is a JVM that loads PyTorch (about ten seconds here): one kill shows it; raise to hunt for a rare case. */
    private static final int ROUNDS = 1;

    @Test
    void aProcessKilledWhileWritingACheckpointLeavesThePreviousOneLoadable(@TempDir Path run) throws Exception {
        List<String> leftBehind = new ArrayList<>();
        long lastStep = 0;
        for (int round = 0; round < ROUNDS; round++) {
            Process writer = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
                    "-XX:+UseSerialGC", "-Dai.djl.offline=true", "-cp", System.getProperty("java.class.path"),
                    CheckpointWriter.class.getName(), run.toString())
                    .redirectErrorStream(true).start();
            try {
                BlockingQueue<String> lines = new LinkedBlockingQueue<>();
                Thread reader = new Thread(() -> {
                    try (BufferedReader in = new BufferedReader(new InputStreamReader(writer.getInputStream(), StandardCharsets.UTF_8))) {
                        for (String line; (line = in.readLine()) != null; ) if (line.startsWith("checkpoint-writer ")) {
                            lines.add(line);
                            System.out.println(line); // beside the test's report, for when it fails
                        }
                    } catch (java.io.IOException e) {
                        // the process was killed
                    }
                }, "checkpoint-writer-output");
                reader.setDaemon(true);
                reader.start();
                // Two saves done (so one checkpoint at least is complete, and a save takes this long), then the kill lands within the next write.
                long saveMillis = 0;
                for (int saved = 0; saved < 2; ) {
                    String line = lines.poll(60, TimeUnit.SECONDS);
                    assertNotNull(line, "the writer said nothing for 60 s");
                    if (line.startsWith("checkpoint-writer saved ")) {
                        saved++;
                        saveMillis = Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
                    }
                }
                String writing;
                do {
                    writing = lines.poll(60, TimeUnit.SECONDS);
                    assertNotNull(writing, "the writer stopped writing");
                } while (!writing.startsWith("checkpoint-writer writing "));
                Thread.sleep(ThreadLocalRandom.current().nextLong(Math.max(1, saveMillis * 3 / 4)));
                ProcessHandle.of(writer.pid()).orElseThrow().destroyForcibly(); // SIGKILL: nothing runs after it
                assertTrue(writer.waitFor(30, TimeUnit.SECONDS));
            } finally {
                writer.destroyForcibly();
            }
            try (Stream<Path> s = Files.list(Checkpoints.folder(run))) {
                s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(".")).forEach(leftBehind::add);
            }
            Path latest = Checkpoints.latest(run).orElseThrow();
            assertTrue(Checkpoints.problem(latest).isEmpty(), latest + ": " + Checkpoints.problem(latest));
            long step = Checkpoints.readJson(latest).get("step").asLong();
            assertTrue(step > lastStep, "round " + round + " resumed at step " + step + " after " + lastStep);
            lastStep = step;
            try (NDManager root = NDManager.newBaseManager()) {
                CausalLm model = CausalLm.create(ModelConfig.preset("small"), root, 1);
                assertEquals(step, ModelWeights.load(model, latest.resolve(Checkpoints.MODEL)), "the weights load, stamped with their step");
                try (AdamW optimizer = new AdamW(model.trainableParameters(), new AdamW.Settings(0.9, 0.999, 1e-8, 0.01), root)) {
                    optimizer.load(latest.resolve(Checkpoints.OPTIMIZER));
                }
            }
        }
        assertTrue(leftBehind.stream().anyMatch(n -> n.contains(".partial")), "a kill landed inside a write: " + leftBehind);
    }
}
