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

/**
 * A run's JSON-lines log ({@code metrics.jsonl}, {@code trajectories.jsonl}): one JSON object per
 * line, flushed as written so that a crashed run keeps its history. Resuming from step n first drops the lines of steps after n, which the resumed run
 * is about to redo, so the file never holds a step twice.
 */
public final class MetricsLog implements AutoCloseable {

    private final Path file;
    private final BufferedWriter out;

    private MetricsLog(Path file, BufferedWriter out) {
        this.file = file;
        this.out = out;
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
        return new MetricsLog(file, Files.newBufferedWriter(file, StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND));
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
        return new MetricsLog(file, Files.newBufferedWriter(file, StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND));
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

    @Override
    public void close() throws IOException {
        out.close();
    }
}
