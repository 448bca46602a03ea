package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Run folders: one per run, even for runs started in the same second, and their owner's only. */
class RunDirsTest {

    @Test
    void runsStartedTogetherGetFoldersOfTheirOwn(@TempDir Path root) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            Callable<Path> start = () -> RunDirs.createNew(root, "train-arithmetic");
            List<Future<Path>> runs = pool.invokeAll(java.util.Collections.nCopies(8, start));
            Set<Path> folders = new HashSet<>();
            for (Future<Path> run : runs) folders.add(run.get());
            assertEquals(8, folders.size(), "eight runs, eight folders: " + folders);
            for (Path f : folders) {
                assertTrue(Files.isDirectory(f));
                assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)), f.toString());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aNamedFolderThatExistsIsAnotherRunsAndRefused(@TempDir Path root) throws Exception {
        Path run = RunDirs.createNamed(root.resolve("a").resolve("run"), "--resume");
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(run)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RunDirs.createNamed(run, "--resume"));
        assertTrue(e.getMessage().contains(run.toString()) && e.getMessage().contains("--resume"), e.getMessage());
    }

    @Test
    void aPrivateFileIsReplacedWholeAndOwnerOnly(@TempDir Path root) throws Exception {
        Path file = root.resolve("train.conf");
        RunDirs.writeOwnerOnly(file, "a = 1\n");
        RunDirs.writeOwnerOnly(file, "a = 2\n");
        assertEquals("a = 2\n", Files.readString(file));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertEquals(List.of(file), Files.list(root).toList(), "no temporary file left behind");
    }
}
