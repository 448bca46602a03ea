package dev.agentswarm.app;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Set;

/**
 * Run folders: where a command's files go when the user names none ({@code runs/<kind>-<date>-<time>}),
 * each claimed by one run only, and readable by its owner only: a run folder holds the run's
 * configuration, its trajectories (model-written code and tool output) and its weights.
 */
public final class RunDirs {

    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");
    private static final Set<PosixFilePermission> OWNER_FOLDER = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> OWNER_FILE = PosixFilePermissions.fromString("rw-------");
    /** Runs started in one second are told apart by a suffix; past this many something else is wrong. */
    private static final int MAX_SAME_SECOND = 1000;

    private RunDirs() {}

    /** A new folder {@code runs/<kind>-<date>-<time>}, created (owner only) and so taken from any other run. */
    public static Path timestamped(String kind) {
        try {
            return createNew(Path.of("runs"), kind);
        } catch (IOException e) {
            throw new IllegalStateException("cannot create a run folder under runs/: " + e.getMessage(), e);
        }
    }

    /** {@code kind-<date>-<time>}, e.g. {@code swarm-20261126-171500}. */
    public static String stamped(String kind) {
        return kind + "-" + LocalDateTime.now().format(STAMP);
    }

    /**
     * Creates {@code root/<kind>-<date>-<time>}, or, when a run started in the same second has it,
     * the same name with {@code -2}, {@code -3}…: creating the folder is what claims it, so two runs
     * never share one (a second run would resume from the first's checkpoints).
     */
    public static Path createNew(Path root, String kind) throws IOException {
        Files.createDirectories(root);
        String base = stamped(kind);
        for (int n = 1; n <= MAX_SAME_SECOND; n++) {
            Path dir = root.resolve(n == 1 ? base : base + "-" + n);
            try {
                return createOwnerOnly(dir);
            } catch (FileAlreadyExistsException taken) {
                // another run of this second has it: try the next suffix
            }
        }
        throw new IOException(MAX_SAME_SECOND + " run folders named " + base + " exist under " + root);
    }

    /**
     * Creates the run folder the user named; one that exists is refused, as it is another run's
     * (its checkpoints would be resumed from, its files mixed with this run's), unless the command
     * was asked to resume it ({@code resumeFlag} names how).
     */
    public static Path createNamed(Path dir, String resumeFlag) throws IOException {
        if (dir.toAbsolutePath().getParent() != null) Files.createDirectories(dir.toAbsolutePath().getParent());
        try {
            return createOwnerOnly(dir);
        } catch (FileAlreadyExistsException e) {
            throw new IllegalArgumentException("the run folder " + dir + " exists already: continue that run with " + resumeFlag + " "
                    + dir + ", or name a new folder");
        }
    }

    /** Writes {@code text} to {@code file} readable by its owner only, replacing it whole (never half-written). */
    public static void writeOwnerOnly(Path file, String text) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Path partial = Files.createTempFile(dir, "." + file.getFileName(), ".partial", fileAttribute(OWNER_FILE));
        try {
            Files.writeString(partial, text, StandardCharsets.UTF_8);
            Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(partial);
        }
    }

    /**
     * Creates {@code dir} (its parent must exist) readable by its owner only (0700): a run's files hold
     * model output and tool results. One that exists is refused ({@link FileAlreadyExistsException}).
     */
    public static Path createOwnerOnly(Path dir) throws IOException {
        Files.createDirectory(dir, fileAttribute(OWNER_FOLDER));
        // The attribute passes through the umask; a restrictive mode is what is meant, so it is set again.
        if (posix(dir)) Files.setPosixFilePermissions(dir, OWNER_FOLDER);
        return dir;
    }

    private static FileAttribute<?>[] fileAttribute(Set<PosixFilePermission> mode) {
        return posix(Path.of("")) ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(mode)} : new FileAttribute<?>[0];
    }

    private static boolean posix(Path p) {
        return p.toAbsolutePath().getFileSystem().supportedFileAttributeViews().contains("posix");
    }
}
