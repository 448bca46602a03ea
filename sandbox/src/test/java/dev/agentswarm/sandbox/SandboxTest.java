package dev.agentswarm.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Hostile programs under bubblewrap: each contained, the caller told which limit, nothing left behind. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SandboxTest {

    private final SandboxSettings settings =
            settings("wall-timeout = 3s, cpu-seconds = 1, memory = 256MiB, processes = 32, file-size = 1MiB, work-size = 4MiB, max-output = 4KiB, slots = 2");
    private final Sandbox sandbox = Sandbox.create(settings);

    /** The defaults with {@code overrides} (HOCON). */
    static SandboxSettings settings(String overrides) {
        return SandboxSettings.fromConfig(ConfigFactory.parseString(overrides).withFallback(ConfigFactory.load().getConfig("agentswarm.sandbox")));
    }

    @AfterAll
    void close() {
        sandbox.close();
    }

    private Execution py(String code) {
        return sandbox.run(Language.PYTHON, code, "").toCompletableFuture().join();
    }

    private Execution sh(String code) {
        return sandbox.run(Language.BASH, code, "").toCompletableFuture().join();
    }

    private void nothingLeftBehind() throws Exception {
        assertNothingLeftBehind(settings);
    }

    /** No process of any of the sandbox's uids (or named as a test's canary) is left on the host. */
    static void assertNothingLeftBehind(SandboxSettings settings) throws Exception {
        Thread.sleep(200);
        List<String> left = ProcessHandle.allProcesses().filter(p -> p.info().user().map(u -> {
            try {
                int uid = Integer.parseInt(u);
                return uid >= settings.firstUid() && uid < settings.firstUid() + settings.slots() + settings.sessions();
            } catch (NumberFormatException e) {
                return false;
            }
        }).orElse(false) || p.info().commandLine().map(c -> c.contains("agentswarm-canary")).orElse(false))
                .map(p -> p.pid() + " " + p.info().commandLine().orElse("?")).toList();
        assertEquals(List.of(), left, "processes left behind");
    }

    @Test
    void aProgramRunsWithItsInputAndOutput() {
        Execution e = sandbox.run(Language.PYTHON, "import sys; print(sys.stdin.read().upper())", "hello").toCompletableFuture().join();
        assertTrue(e.ok(), e.toString());
        assertEquals("HELLO\n", e.stdout());
        Execution b = sh("echo $HOME; pwd; exit 3");
        assertEquals(3, b.exitCode());
        assertEquals("/work\n/work\n", b.stdout());
        assertEquals(Execution.Limit.NONE, b.limit());
    }

    @Test
    void theNetworkIsUnreachableEvenOnLoopback() throws Exception {
        Execution e = py("""
                import socket
                for host, port in [("127.0.0.1", 22), ("1.1.1.1", 53)]:
                    try:
                        socket.create_connection((host, port), timeout=1); print(host, "connected")
                    except OSError as e:
                        print(host, "blocked", e.errno)
                """);
        assertFalse(e.stdout().contains("connected"), e.stdout());
        assertEquals(2, e.stdout().lines().filter(l -> l.contains("blocked")).count(), e.toString());
    }

    @Test
    void hostFilesAndEnvironmentAreOutOfReachAndTheSystemIsReadOnly() throws Exception {
        String here = java.nio.file.Path.of("pom.xml").toAbsolutePath().toString();
        Execution e = sh("cat " + here + " /root/.bashrc /etc/shadow 2>&1 | head -c 300; echo; env; touch /usr/x 2>&1; echo data > /work/ok && cat /work/ok");
        assertFalse(e.stdout().contains("<project"), "the project's own files: " + e.stdout());
        assertTrue(e.stdout().contains("Read-only file system"), e.stdout());
        assertTrue(e.stdout().contains("data"), "the work folder is writable: " + e.stdout());
        for (String line : e.stdout().lines().filter(l -> l.contains("=")).toList()) {
            assertTrue(line.startsWith("PATH=") || line.startsWith("HOME=") || line.startsWith("LANG=") || line.startsWith("PWD=")
                    || line.startsWith("SHLVL=") || line.startsWith("_="), "only the sandbox's own variables: " + line);
        }
        // The host JVM is not in the sandbox's pid namespace, and its own init ignores SIGKILL from inside.
        Execution kill = sh("kill -9 " + ProcessHandle.current().pid() + " 2>&1; kill -9 1 2>&1; echo still-here");
        assertTrue(kill.stdout().contains("(" + ProcessHandle.current().pid() + ") - No such process"), kill.toString());
        assertTrue(kill.stdout().contains("still-here"), kill.toString());
    }

    @Test
    void runawayProgramsStopAtTheirLimits() throws Exception {
        Execution loop = py("while True: pass");
        assertEquals(Execution.Limit.CPU_TIME, loop.limit(), loop.toString());
        Execution sleep = py("import time; time.sleep(30)");
        assertEquals(Execution.Limit.WALL_TIME, sleep.limit(), sleep.toString());
        assertTrue(sleep.wallMillis() < 6000, sleep.toString());
        Execution memory = py("x = bytearray(1 << 30)");
        assertEquals(Execution.Limit.MEMORY, memory.limit(), memory.toString());
        // 20 MiB, 320 times the cap: enough to show the cut, and well inside the CPU second (100 MiB took about
        // one CPU second on a 2-core VM, so the CPU limit could stop it first).
        Execution output = py("import sys\nfor _ in range(20): sys.stdout.write('x' * (1 << 20))");
        assertTrue(output.stdoutCut() && output.stdout().length() < 5000 && output.stdout().contains("more bytes cut"), output.stderr());
        assertEquals(Execution.Limit.OUTPUT, output.limit());
        Execution file = py("open('/work/big', 'wb').write(b'x' * (2 << 20))");
        assertEquals(Execution.Limit.FILE_SIZE, file.limit(), file.toString());
        Execution full = sh("for i in 1 2 3 4 5 6; do head -c 900000 /dev/zero > /work/f$i || echo full; done");
        assertTrue(full.stdout().contains("full") || full.stderr().contains("No space left"), full.toString());
        nothingLeftBehind();
    }

    @Test
    void aForkBombAndADaemonAreContainedAndLeaveNothing() throws Exception {
        Execution bomb = sh(":(){ :|:& };: ; sleep 1; echo survived");
        assertTrue(bomb.wallMillis() < 6000, bomb.toString());
        Execution daemon = sh("(exec -a agentswarm-canary sleep 60 &) ; setsid sleep 60 & echo started");
        assertTrue(daemon.stdout().contains("started"), daemon.toString());
        nothingLeftBehind();
    }

    @Test
    void withoutIsolationLimitsStillHoldAndTheWorkFolderIsRemoved() {
        SandboxSettings none = settings("isolation = none, bwrap-path = /nonexistent/bwrap, wall-timeout = 3s, cpu-seconds = 1, max-output = 1KiB");
        try (Sandbox open = Sandbox.create(none)) {
            Execution e = open.run(Language.BASH, "pwd; echo x > here; env | grep -c =", "").toCompletableFuture().join();
            assertTrue(e.ok(), e.toString());
            String dir = e.stdout().lines().findFirst().orElseThrow();
            assertTrue(dir.contains("agentswarm-sandbox"), dir);
            assertFalse(java.nio.file.Files.exists(java.nio.file.Path.of(dir)), "the work folder is gone: " + dir);
            assertTrue(Integer.parseInt(e.stdout().lines().skip(1).findFirst().orElseThrow().strip()) <= 4, "environment cleared: " + e);
            assertEquals(Execution.Limit.CPU_TIME, open.run(Language.PYTHON, "while True: pass", "").toCompletableFuture().join().limit());
        }
    }

    @Test
    void badProgramsAndSettingsAreRefusedClearly() {
        var big = assertThrows(IllegalArgumentException.class, () -> sandbox.run(Language.PYTHON, "#" + "x".repeat(200_000), ""));
        assertTrue(big.getMessage().contains("at most"), big.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Language.parse("cobol"));
        var missing = assertThrows(SandboxUnavailableException.class, () -> Sandbox.create(settings("bwrap-path = /nonexistent/bwrap")));
        assertTrue(missing.getMessage().contains("apt-get install bubblewrap") && missing.getMessage().contains("isolation = none"),
                missing.getMessage());
        // The node's shared sandbox is created inside a map update: its refusal must come out the same, every time.
        for (int attempt = 0; attempt < 2; attempt++) {
            var shared = assertThrows(SandboxUnavailableException.class, () -> Sandbox.shared(settings("bwrap-path = /nonexistent/bwrap")));
            assertTrue(shared.getMessage().contains("apt-get install bubblewrap"), shared.getMessage());
        }
    }
}
