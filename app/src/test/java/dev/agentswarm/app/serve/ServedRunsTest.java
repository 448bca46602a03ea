package dev.agentswarm.app.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Served swarms' run folders past their retention are removed; nothing else under the runs folder is. */
class ServedRunsTest {

    @TempDir
    Path runs;

    @TempDir
    Path elsewhere;

    private Path folder(String name, Instant written) throws Exception {
        Path dir = Files.createDirectories(runs.resolve(name));
        Path trace = Files.writeString(dir.resolve("trace.jsonl"), "{}\n");
        Files.setLastModifiedTime(trace, FileTime.from(written));
        Files.setLastModifiedTime(dir, FileTime.from(written));
        return dir;
    }

    @Test
    void onlyServedSwarmFoldersPastTheirRetentionGo() throws Exception {
        Instant now = Instant.parse("2026-12-02T04:00:00Z");
        Path old = folder("serve-swarm-20261120-100000-1", now.minus(Duration.ofDays(8)));
        Path outside = Files.writeString(elsewhere.resolve("keep.txt"), "not the server's");
        Files.createSymbolicLink(old.resolve("link"), outside);
        Files.setLastModifiedTime(old, FileTime.from(now.minus(Duration.ofDays(8))));
        Path recent = folder("serve-swarm-20261201-100000-2", now.minus(Duration.ofDays(1)));
        // Old, but still written to: a trace that grows is never old.
        Path growing = folder("serve-swarm-20261120-100000-3", now.minus(Duration.ofDays(9)));
        Files.setLastModifiedTime(Files.writeString(growing.resolve("trace.html"), "<html>"), FileTime.from(now));
        Path otherCommand = folder("swarm-20261101-100000", now.minus(Duration.ofDays(30)));

        List<Path> removed = ServedRuns.removeExpired(runs, Duration.ofDays(7), now);

        assertEquals(List.of(old), removed);
        assertFalse(Files.exists(old));
        assertTrue(Files.exists(outside), "a link is removed, never followed");
        assertTrue(Files.exists(recent));
        assertTrue(Files.exists(growing));
        assertTrue(Files.exists(otherCommand), "other commands' run folders are not the server's to remove");
        assertEquals(List.of(), ServedRuns.removeExpired(runs, Duration.ZERO, now.plus(Duration.ofDays(365))), "0 keeps everything");
        assertEquals(List.of(), ServedRuns.removeExpired(runs.resolve("absent"), Duration.ofDays(7), now));
    }
}
