package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Trajectory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A swarm run's trajectory file: what its journal's references name, read back by a resumed run. */
class TrajectoryFileTest {

    @TempDir
    Path dir;

    private static Trajectory answered(String episodeId, String error) {
        return Trajectory.notRun(episodeId, "swarm", "task-1", StopReason.FINAL_ANSWER, error);
    }

    @Test
    void aReopenedFileReadsBackWhatItsReferencesNameTheLastLineOfAnIdWinning() throws Exception {
        Path file = dir.resolve("run/trajectories.jsonl");
        String a;
        String b;
        try (TrajectoryFile f = TrajectoryFile.open(file)) {
            a = f.write(answered("swarm:root/a", "first"));
            b = f.write(answered("swarm:root/b#2", "ünïcode ✓"));
            assertEquals("trajectories.jsonl#swarm:root/a", a);
            assertEquals("trajectories.jsonl#swarm:root/b#2", b, "an attempt's id keeps its #");
            assertEquals("first", f.read(a).orElseThrow().error(), "readable at once, written or not");
        }
        try (TrajectoryFile again = TrajectoryFile.open(file)) {
            assertEquals("first", again.read(a).orElseThrow().error());
            assertEquals("ünïcode ✓", again.read(b).orElseThrow().error());
            again.write(answered("swarm:root/a", "run again after the crash"));
        }
        try (TrajectoryFile third = TrajectoryFile.open(file)) {
            assertEquals("run again after the crash", third.read(a).orElseThrow().error());
            assertEquals("ünïcode ✓", third.read(b).orElseThrow().error(), "what followed the first line is still found");
            assertEquals(Optional.empty(), third.read("trajectories.jsonl#swarm:root/c"), "never written");
            assertEquals(Optional.empty(), third.read("other.jsonl#swarm:root/a"), "another file's reference");
        }
        assertEquals(3, Files.readAllLines(file).size());
    }

    @Test
    void aLineTheCrashCutShortIsDroppedAndTheNextGoesAfterTheLastWholeOne() throws Exception {
        Path file = dir.resolve("trajectories.jsonl");
        try (TrajectoryFile f = TrajectoryFile.open(file)) {
            f.write(answered("swarm:root/a", "kept"));
        }
        Files.writeString(file, "{\"episodeId\": \"swarm:root/b\", \"gro", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        try (TrajectoryFile f = TrajectoryFile.open(file)) {
            assertEquals(Optional.empty(), f.read("trajectories.jsonl#swarm:root/b"));
            f.write(answered("swarm:root/c", "after"));
        }
        try (TrajectoryFile f = TrajectoryFile.open(file)) {
            assertEquals("kept", f.read("trajectories.jsonl#swarm:root/a").orElseThrow().error());
            assertEquals("after", f.read("trajectories.jsonl#swarm:root/c").orElseThrow().error());
        }
        assertEquals(2, Files.readAllLines(file).size());
    }

    @Test
    void aWholeLineThatIsNoTrajectoryIsRefusedNamingWhere() throws Exception {
        Path file = dir.resolve("trajectories.jsonl");
        Files.writeString(file, "{\"not\": \"a trajectory\"\n", StandardCharsets.UTF_8);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TrajectoryFile.open(file));
        assertTrue(e.getMessage().contains("trajectories.jsonl:1: not a trajectory"), e.getMessage());
    }
}
