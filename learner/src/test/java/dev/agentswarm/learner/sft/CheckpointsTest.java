package dev.agentswarm.learner.sft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.learner.optim.AdamW;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.ModelConfig;
import dev.agentswarm.policy.model.ModelWeights;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Checkpoints a crash or a bad disk left behind: the newest one that is whole is the one resumed from. */
class CheckpointsTest {

    private static NDManager root;
    private static CausalLm model;
    private static AdamW optimizer;

    @BeforeAll
    static void model() {
        root = NDManager.newBaseManager();
        model = CausalLm.create(ModelConfig.preset("tiny"), root, 1);
        optimizer = new AdamW(model.trainableParameters(), new AdamW.Settings(0.9, 0.999, 1e-8, 0.01), root);
    }

    @AfterAll
    static void close() {
        optimizer.close();
        root.close();
    }

    static Path save(Path run, long step, int keep) throws Exception {
        return Checkpoints.save(run, step, step, model, null, null, optimizer, Json.object().put("step", step).put("version", step), null, keep);
    }

    private static List<String> entries(Path run) throws Exception {
        try (Stream<Path> s = Files.list(Checkpoints.folder(run))) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void stateJsonCarriesEveryFilesChecksumAndACorruptCheckpointFallsBackToTheNewestThatVerifies(@TempDir Path run) throws Exception {
        save(run, 1, 0);
        Path second = save(run, 2, 0);
        JsonNode files = Checkpoints.readJson(second).get("files");
        assertEquals(Files.size(second.resolve(Checkpoints.MODEL)), files.get(Checkpoints.MODEL).get("bytes").asLong());
        assertTrue(files.get(Checkpoints.OPTIMIZER).get("crc32c").asText().matches("[0-9a-f]{8}"), files.toString());
        assertEquals(second, Checkpoints.latest(run).orElseThrow());

        // One byte of the newest weights changed on the disk (its size the same): it no longer verifies.
        try (RandomAccessFile f = new RandomAccessFile(second.resolve(Checkpoints.MODEL).toFile(), "rw")) {
            f.seek(f.length() / 2);
            int b = f.read();
            f.seek(f.length() / 2);
            f.write(b ^ 0xff);
        }
        assertTrue(Checkpoints.problem(second).orElseThrow().contains("checksum"), Checkpoints.problem(second).toString());
        Path back = Checkpoints.latest(run).orElseThrow();
        assertEquals("step-1", back.getFileName().toString());
        assertEquals(1, ModelWeights.load(model, back.resolve(Checkpoints.MODEL)), "the older checkpoint loads");

        // A truncated file, and then nothing that verifies at all: said, not a silent start from scratch.
        try (RandomAccessFile f = new RandomAccessFile(back.resolve(Checkpoints.OPTIMIZER).toFile(), "rw")) {
            f.setLength(f.length() - 1);
        }
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class, () -> Checkpoints.latest(run));
        assertTrue(none.getMessage().contains("no checkpoint") && none.getMessage().contains("optimizer.safetensors has"), none.getMessage());
    }

    @Test
    void aCrashWhileAStepIsSavedAgainLeavesItsOldCopyToResumeFrom(@TempDir Path run) throws Exception {
        save(run, 1, 0);
        Path two = save(run, 2, 0);
        // The state a crash leaves between a re-save's two renames: the old copy set aside, the new one not yet in place.
        Path aside = Checkpoints.folder(run).resolve(".step-2.replaced");
        Files.move(two, aside);
        Files.createDirectory(Checkpoints.folder(run).resolve(".step-2.partial-123"));
        assertEquals(aside, Checkpoints.latest(run).orElseThrow(), "step 2 is still there to load");
        assertEquals(2, Checkpoints.readJson(Checkpoints.latest(run).orElseThrow()).get("step").asLong());
        // The next save puts the old copy back where the new never arrived, and clears what the crash left.
        save(run, 3, 0);
        assertEquals(List.of("latest", "step-1", "step-2", "step-3"), entries(run));
        // A re-save that completes replaces the copy and leaves nothing aside.
        save(run, 3, 0);
        assertEquals(List.of("latest", "step-1", "step-2", "step-3"), entries(run));
        assertTrue(Checkpoints.problem(Checkpoints.folder(run).resolve("step-3")).isEmpty());
    }

    @Test
    void keepCheckpointsPrunesAllButTheNewestAndAMissingPointerFindsThem(@TempDir Path run) throws Exception {
        for (long step = 1; step <= 4; step++) save(run, step, 2);
        assertEquals(List.of("latest", "step-3", "step-4"), entries(run));
        // A crash after the first checkpoint's rename and before the pointer's: the folder is found all the same.
        Files.delete(Checkpoints.folder(run).resolve(Checkpoints.LATEST));
        assertEquals("step-4", Checkpoints.latest(run).orElseThrow().getFileName().toString());
        Files.writeString(Checkpoints.folder(run).resolve(Checkpoints.LATEST), "../../elsewhere\n");
        assertEquals("step-4", Checkpoints.latest(run).orElseThrow().getFileName().toString(), "a pointer naming no step is passed over");
        assertFalse(Checkpoints.latest(run.resolve("never-ran")).isPresent());
    }
}
