package dev.agentswarm.learner.sft;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * A checkpoint folder's files on the disk: their checksums (which state.json carries, so a reader can
 * tell a complete checkpoint from one a crash or a bad disk cut short), their check, and forcing them
 * to the disk. CRC32C: it catches torn and truncated files as a cryptographic hash would, and runs at
 * memory speed (the JDK's is hardware-assisted), so checking a multi-gigabyte checkpoint when a run
 * resumes costs seconds, not minutes.
 */
final class CheckpointFiles {

    /** state.json's field: {@code {"model.safetensors": {"bytes": n, "crc32c": "89abcdef"}, "hf/config.json": …}}. */
    static final String FILES = "files";

    private CheckpointFiles() {}

    /** Every file under {@code folder} but state.json, by its path relative to it ('/'-separated). */
    static ObjectNode checksums(Path folder) throws IOException {
        ObjectNode files = Json.object();
        for (Path file : files(folder)) {
            String name = relative(folder, file);
            if (name.equals(Checkpoints.STATE)) continue;
            files.set(name, Json.object().put("bytes", Files.size(file)).put("crc32c", crc32c(file)));
        }
        return files;
    }

    /**
     * Why {@code checkpoint} cannot be loaded, or empty when it can: its state.json reads, and every file
     * it lists is there with its size and checksum. A checkpoint written before checksums were kept has
     * none to check; it passes when its state.json and weights are there.
     */
    static Optional<String> problem(Path checkpoint) {
        JsonNode state;
        try {
            state = Json.parse(Files.readString(checkpoint.resolve(Checkpoints.STATE), StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            return Optional.of("its " + Checkpoints.STATE + " cannot be read (" + e.getMessage() + ")");
        }
        JsonNode files = state.get(FILES);
        if (files == null) {
            return Files.isRegularFile(checkpoint.resolve(Checkpoints.MODEL)) ? Optional.empty()
                    : Optional.of("it has no " + Checkpoints.MODEL);
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = files.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            Path file = checkpoint.resolve(e.getKey()).normalize();
            if (!file.startsWith(checkpoint.normalize())) return Optional.of(Checkpoints.STATE + " names " + e.getKey() + ", outside it");
            try {
                if (!Files.isRegularFile(file)) return Optional.of(e.getKey() + " is missing");
                long bytes = Files.size(file);
                if (bytes != e.getValue().path("bytes").asLong(-1)) {
                    return Optional.of(e.getKey() + " has " + bytes + " bytes, not the " + e.getValue().path("bytes").asLong(-1) + " written");
                }
                if (!crc32c(file).equals(e.getValue().path("crc32c").asText())) return Optional.of(e.getKey() + " does not match its checksum");
            } catch (IOException ex) {
                return Optional.of(e.getKey() + " cannot be read (" + ex.getMessage() + ")");
            }
        }
        return Optional.empty();
    }

    /** Forces every file and folder under {@code folder}, and the folder itself, to the disk. */
    static void syncTree(Path folder) throws IOException {
        for (Path file : files(folder)) {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
        }
        List<Path> folders;
        try (Stream<Path> walk = Files.walk(folder)) {
            folders = walk.filter(Files::isDirectory).toList();
        }
        for (Path f : folders) syncFolder(f);
    }

    /**
     * Forces a folder's entries (the names created, renamed or removed in it) to the disk: without it a
     * rename can be lost with the machine even though the files it names were synced.
     */
    static void syncFolder(Path folder) throws IOException {
        try (FileChannel ch = FileChannel.open(folder, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // Some file systems (and Windows) cannot open a folder for syncing: there is nothing more to do.
            if (Files.isDirectory(folder) && System.getProperty("os.name", "").startsWith("Windows")) return;
            throw e;
        }
    }

    private static List<Path> files(Path folder) throws IOException {
        try (Stream<Path> walk = Files.walk(folder)) {
            return new ArrayList<>(walk.filter(Files::isRegularFile).sorted().toList());
        }
    }

    private static String relative(Path folder, Path file) {
        return folder.relativize(file).toString().replace(folder.getFileSystem().getSeparator(), "/");
    }

    private static String crc32c(Path file) throws IOException {
        CRC32C crc = new CRC32C();
        byte[] buffer = new byte[1 << 20];
        try (InputStream in = Files.newInputStream(file)) {
            for (int n; (n = in.read(buffer)) > 0; ) crc.update(buffer, 0, n);
        }
        return String.format("%08x", crc.getValue());
    }
}
