package dev.agentswarm.app;

import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.orchestrator.swarm.TrajectoryStore;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A swarm run's trajectory file ({@code trajectories.jsonl} in its run folder) as its orchestrators'
 * {@link TrajectoryStore}: one JSON line per sub-agent attempt, appended behind the orchestrators on a
 * thread of its own, each referenced as {@code trajectories.jsonl#EPISODE_ID} in the journal. A resumed
 * run opens it again: the lines already there are indexed (a torn last line, cut by the crash, is
 * dropped) and new ones go after them; when an episode id has several lines (an attempt run again after
 * the crash cut its first answer short) the last one is its trajectory.
 */
public final class TrajectoryFile implements TrajectoryStore, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TrajectoryFile.class);

    private final Path file;
    private final String prefix;
    private final FileChannel channel;
    /** Where each episode's line starts (the last line of an id wins). */
    private final Map<String, Long> offsets = new ConcurrentHashMap<>();
    /** Trajectories handed over and not yet written: read back from here meanwhile. */
    private final Map<String, Trajectory> pending = new ConcurrentHashMap<>();
    private final ExecutorService writer = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "agentswarm-trajectory-file");
        t.setDaemon(true);
        return t;
    });

    private TrajectoryFile(Path file, FileChannel channel) {
        this.file = file;
        this.prefix = file.getFileName() + "#";
        this.channel = channel;
    }

    /** The file at {@code file}, created when missing, its existing lines indexed. */
    public static TrajectoryFile open(Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        TrajectoryFile f = new TrajectoryFile(file, channel);
        try {
            channel.position(f.indexLines());
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        return f;
    }

    /** Indexes every complete line and cuts a torn last one; returns where the next line goes. */
    private long indexLines() throws IOException {
        long at = 0;
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            long size = channel.size();
            String line;
            int number = 0;
            while ((line = in.readLine()) != null) {
                number++;
                long length = line.getBytes(StandardCharsets.UTF_8).length + 1L;
                if (at + length > size) break; // no newline: the crash cut this line short
                if (!line.isBlank()) {
                    try {
                        offsets.put(Json.MAPPER.readValue(line, Trajectory.class).episodeId(), at);
                    } catch (IOException e) {
                        throw new IllegalArgumentException(file + ":" + number + ": not a trajectory: " + e.getMessage(), e);
                    }
                }
                at += length;
            }
        }
        channel.truncate(at);
        return at;
    }

    public Path file() {
        return file;
    }

    @Override
    public String write(Trajectory t) {
        pending.put(t.episodeId(), t);
        writer.execute(() -> append(t));
        return prefix + t.episodeId();
    }

    /** On the writer thread. A line that cannot be written is lost to a resumed run's result, never to the journal. */
    private void append(Trajectory t) {
        try {
            byte[] line = (Json.write(t) + "\n").getBytes(StandardCharsets.UTF_8);
            long at = channel.position();
            ByteBuffer buffer = ByteBuffer.wrap(line);
            while (buffer.hasRemaining()) channel.write(buffer);
            offsets.put(t.episodeId(), at);
        } catch (IOException | RuntimeException e) {
            LOG.warn("cannot append the trajectory of {} to {}: {}", t.episodeId(), file, e.toString());
        } finally {
            pending.remove(t.episodeId(), t);
        }
    }

    @Override
    public Optional<Trajectory> read(String ref) {
        if (ref == null || !ref.startsWith(prefix)) return Optional.empty();
        String episodeId = ref.substring(prefix.length());
        Trajectory waiting = pending.get(episodeId);
        if (waiting != null) return Optional.of(waiting);
        Long at = offsets.get(episodeId);
        if (at == null) return Optional.empty();
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ);
             BufferedReader lines = new BufferedReader(new InputStreamReader(Channels.newInputStream(in.position(at)),
                     StandardCharsets.UTF_8))) {
            return Optional.of(Json.MAPPER.readValue(lines.readLine(), Trajectory.class));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + ref + " from " + file + ": " + e.getMessage(), e);
        }
    }

    /** Writes what is still queued, then closes the file. */
    @Override
    public void close() throws IOException {
        writer.shutdown();
        try {
            if (!writer.awaitTermination(30, TimeUnit.SECONDS)) LOG.warn("trajectories still queued for {} after 30 s", file);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        channel.close();
    }
}
