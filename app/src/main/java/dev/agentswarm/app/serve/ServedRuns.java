package dev.agentswarm.app.serve;

import dev.agentswarm.learner.sft.Checkpoints;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The run folders of served swarms ({@code serve-swarm-*} under the runs folder, which other commands'
 * folders share): those whose last write is older than the retention period are removed, so a public
 * server does not fill its disk. A folder's age is its newest file's: a trace still being written is
 * never old. Links are removed, never followed.
 */
final class ServedRuns {

    static final String PREFIX = "serve-swarm-";

    private ServedRuns() {}

    /** Removes the expired folders under {@code runsRoot}; {@code keep} zero keeps everything. Returns those removed. */
    static List<Path> removeExpired(Path runsRoot, Duration keep, Instant now) throws IOException {
        List<Path> removed = new ArrayList<>();
        if (keep.isZero() || !Files.isDirectory(runsRoot)) return removed;
        Instant cutoff = now.minus(keep);
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(runsRoot, PREFIX + "*")) {
            for (Path dir : dirs) {
                if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) continue;
                if (lastWrite(dir).isBefore(cutoff)) {
                    Checkpoints.deleteTree(dir); // Files.walk: a link is removed, never followed
                    removed.add(dir);
                }
            }
        }
        return removed;
    }

    private static Instant lastWrite(Path dir) throws IOException {
        Instant[] newest = {Files.getLastModifiedTime(dir, LinkOption.NOFOLLOW_LINKS).toInstant()};
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                if (!attrs.isRegularFile()) return FileVisitResult.CONTINUE; // a link's own time says nothing of the run
                Instant t = attrs.lastModifiedTime().toInstant();
                if (t.isAfter(newest[0])) newest[0] = t;
                return FileVisitResult.CONTINUE;
            }
        });
        return newest[0];
    }
}
