package dev.agentswarm.core.json;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * A run's JSON-lines log ({@code metrics.jsonl}, {@code trajectories.jsonl}): one JSON object per
 * line, flushed as written so that a crashed run keeps its history ({@link #sync} makes it survive the
 * machine too). Resuming from step n first drops the lines of steps after n, which the resumed run
 * is about to redo, so the file never holds a step twice.
 */
public final class MetricsLog implements AutoCloseable {

    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private final Path file;
    private final FileChannel channel;
    private final BufferedWriter out;

    private MetricsLog(Path file) throws IOException {
        this.file = file;
        if (!Files.exists(file)) {
            // A run's logs hold what its models wrote and its tools answered: its owner's only.
            boolean posix = file.toAbsolutePath().getFileSystem().supportedFileAttributeViews().contains("posix");
            try {
                if (posix) Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            } catch (java.nio.file.FileAlreadyExistsException raced) {
                // created meanwhile: appended to as it is
            }
        }
        this.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        this.out = new BufferedWriter(Channels.newWriter(channel, StandardCharsets.UTF_8));
    }

    /**
     * An append-only log whose lines are all kept ({@code trajectories.jsonl}): reopening only cuts a
     * torn last line (every complete line ends with a newline), without reading the rest.
     */
    public static MetricsLog appendOnly(Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        if (Files.exists(file)) {
            try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file, StandardOpenOption.READ,
                    StandardOpenOption.WRITE)) {
                long end = ch.size();
                java.nio.ByteBuffer one = java.nio.ByteBuffer.allocate(1);
                while (end > 0) {
                    one.clear();
                    ch.read(one, end - 1);
                    if (one.get(0) == '\n') break;
                    end--;
                }
                ch.truncate(end);
            }
        }
        return new MetricsLog(file);
    }

    public static MetricsLog open(Path file, long keepThroughStep) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        if (Files.exists(file)) {
            List<String> kept = new ArrayList<>();
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (line.isBlank()) continue;
                try {
                    if (Json.parse(line).path("step").asLong(Long.MAX_VALUE) <= keepThroughStep) kept.add(line);
                } catch (IOException e) {
                    // a torn last line from a crash: dropped
                }
            }
            Files.write(file, kept, StandardCharsets.UTF_8);
        }
        return new MetricsLog(file);
    }

    public Path file() {
        return file;
    }

    /** Any record, as one JSON line, flushed before this returns. */
    public void append(Object record) {
        try {
            out.write(Json.write(record));
            out.write('\n');
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Forces every line appended so far to the disk (fsync): what was flushed survives this process's
     * death, what is synced survives the machine's. One call covers all the lines before it, so a
     * writer syncs once per group of lines that must be durable together, not once per line.
     */
    public void sync() {
        try {
            channel.force(false);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
