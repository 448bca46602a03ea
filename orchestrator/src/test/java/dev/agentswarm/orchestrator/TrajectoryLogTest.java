package dev.agentswarm.orchestrator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.json.MetricsLog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrajectoryLogTest {

    @Test
    void answersAreLinesAndEverySyncAddsItsTime(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("trajectories.jsonl");
        try (MetricsLog log = MetricsLog.appendOnly(file)) {
            TrajectoryLog trajectories = new TrajectoryLog(log);
            assertEquals(0.0, trajectories.syncMillis());
            trajectories.append(GroupLedgerTest.answer("g1#0", 1));
            trajectories.append(GroupLedgerTest.answer("g1#1", 1));
            List<String> lines = Files.readAllLines(file);
            assertEquals(2, lines.size(), "flushed as appended, before any sync");
            assertTrue(lines.get(1).contains("\"g1#1\""), lines.get(1));
            trajectories.sync();
            double once = trajectories.syncMillis();
            assertTrue(once > 0, "the sync's time is counted");
            trajectories.sync();
            assertTrue(trajectories.syncMillis() > once, "and adds up");
        }
    }

    @Test
    void aSyncThatFailsCountsNoTime(@TempDir Path dir) throws Exception {
        MetricsLog log = MetricsLog.appendOnly(dir.resolve("trajectories.jsonl"));
        TrajectoryLog trajectories = new TrajectoryLog(log);
        log.close();
        assertThrows(RuntimeException.class, trajectories::sync);
        assertEquals(0.0, trajectories.syncMillis());
    }
}
