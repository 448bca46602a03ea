package dev.agentswarm.core.json;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A run's JSON-lines files after a crash: complete lines survive, a torn one goes, redone steps are not logged twice. */
class MetricsLogTest {

    @Test
    void anAppendOnlyLogKeepsEveryCompleteLineAndCutsOnlyATornOne(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("trajectories.jsonl");
        Files.writeString(file, "{\"episodeId\":\"a\"}\n{\"episodeId\":\"b\"}\n{\"episodeId\":\"c\",\"tur");
        try (MetricsLog log = MetricsLog.appendOnly(file)) {
            log.append(Json.object().put("episodeId", "d"));
        }
        assertEquals(List.of("{\"episodeId\":\"a\"}", "{\"episodeId\":\"b\"}", "{\"episodeId\":\"d\"}"), Files.readAllLines(file));
        Files.writeString(file, "{\"torn");
        MetricsLog.appendOnly(file).close();
        assertEquals(0, Files.size(file), "a file holding only a torn line is emptied");
    }

    @Test
    void reopeningAtAStepDropsTheLinesOfLaterSteps(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("metrics.jsonl");
        Files.writeString(file, "{\"step\":1}\n{\"step\":2}\n{\"step\":3}\n{\"step\":4");
        try (MetricsLog log = MetricsLog.open(file, 2)) {
            log.append(Json.object().put("step", 3));
        }
        assertEquals(List.of("{\"step\":1}", "{\"step\":2}", "{\"step\":3}"), Files.readAllLines(file));
    }

    @Test
    void aNewLogIsItsOwnersOnlyAndSyncedLinesAreThere(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("trajectories.jsonl");
        try (MetricsLog log = MetricsLog.appendOnly(file)) {
            log.append(Json.object().put("episodeId", "a"));
            log.sync();
            assertEquals(List.of("{\"episodeId\":\"a\"}"), Files.readAllLines(file));
        }
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)),
                "a run's trajectories are model-written code and tool output: not for other users");
        try (MetricsLog log = MetricsLog.open(dir.resolve("metrics.jsonl"), 0)) {
            log.append(Json.object().put("step", 1));
        }
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("metrics.jsonl"))));
    }
}
