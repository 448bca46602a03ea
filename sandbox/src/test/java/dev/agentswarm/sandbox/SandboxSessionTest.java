package dev.agentswarm.sandbox;

import static dev.agentswarm.sandbox.SandboxTest.assertNothingLeftBehind;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Stateful sessions: variables kept, limits interrupt a cell and keep the session, crashes restart it, nothing leaks. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SandboxSessionTest {

    private final SandboxSettings settings = SandboxTest.settings("wall-timeout = 2s, cpu-seconds = 1, memory = 256MiB, processes = 32, "
            + "file-size = 1MiB, work-size = 4MiB, max-output = 4KiB, slots = 2, sessions = 3, warm-sessions = 1");
    private final Sandbox sandbox = Sandbox.create(settings);

    @AfterAll
    void close() {
        sandbox.close();
    }

    private SandboxSession open() {
        return sandbox.openSession().toCompletableFuture().join();
    }

    private static Execution py(SandboxSession s, String code) {
        return s.run(Language.PYTHON, code).toCompletableFuture().join();
    }

    @Test
    void variablesFunctionsAndFilesLiveBetweenCalls() {
        try (SandboxSession s = open()) {
            assertTrue(py(s, "import math\nx = 21\ndef twice(v):\n    return 2 * v").ok());
            Execution e = py(s, "print('x is', x)\ntwice(x)");
            assertEquals("x is 21\n42\n", e.stdout(), "a last expression's value is printed, like a notebook: " + e);
            Execution sh = s.run(Language.BASH, "echo from-bash > shared.txt; echo $PWD").toCompletableFuture().join();
            assertTrue(sh.ok(), sh.toString());
            assertEquals("from-bash\n", py(s, "print(open('shared.txt').read(), end='')").stdout());
            s.put("data/in.csv", "a,b\n1,2\n".getBytes(StandardCharsets.UTF_8)).toCompletableFuture().join();
            assertTrue(py(s, "rows = open('data/in.csv').read().split()\nopen('out.txt', 'w').write(str(len(rows)))").ok());
            assertArrayEquals("2".getBytes(StandardCharsets.UTF_8), s.get("out.txt").toCompletableFuture().join());
            assertEquals(1, s.starts());
        }
    }

    @Test
    void errorsShowTheCellsOwnTracebackAndKeepTheSession() {
        try (SandboxSession s = open()) {
            py(s, "def f(v):\n    return 1 / v");
            Execution e = py(s, "y = 5\nf(0)");
            assertEquals(1, e.exitCode());
            assertTrue(e.stderr().contains("ZeroDivisionError") && e.stderr().contains("return 1 / v"), e.stderr());
            assertFalse(e.stderr().contains("session_driver") || e.stderr().contains("run_python"), "no driver frames: " + e.stderr());
            assertTrue(py(s, "def g(:").stderr().contains("SyntaxError"));
            assertEquals(3, py(s, "import sys; sys.exit(3)").exitCode());
            assertEquals("5\n", py(s, "y").stdout(), "the session outlives errors and sys.exit");
        }
    }

    @Test
    void aCellAtItsLimitIsInterruptedAndTheVariablesStay() {
        try (SandboxSession s = open()) {
            py(s, "kept = 'yes'");
            Execution loop = py(s, "while True: pass");
            assertEquals(Execution.Limit.CPU_TIME, loop.limit(), loop.toString());
            Execution sleep = py(s, "import time\ntry:\n    time.sleep(30)\nexcept Exception:\n    pass");
            assertEquals(Execution.Limit.WALL_TIME, sleep.limit(), sleep.toString());
            assertTrue(sleep.wallMillis() < 4000, sleep.toString());
            Execution memory = py(s, "big = bytearray(1 << 30)");
            assertEquals(Execution.Limit.MEMORY, memory.limit(), memory.toString());
            Execution output = py(s, "import sys\nfor _ in range(16): sys.stdout.write('x' * (1 << 20))"); // 16 MiB: far past the cap, well inside 1 CPU second
            assertEquals(Execution.Limit.OUTPUT, output.limit(), output.stderr());
            assertTrue(output.stdoutCut() && output.stdout().length() < 5000 && output.stdout().contains("more bytes cut"));
            Execution file = py(s, "open('big', 'wb').write(b'x' * (2 << 20))");
            assertEquals(Execution.Limit.FILE_SIZE, file.limit(), file.toString());
            Execution bash = s.run(Language.BASH, "while true; do :; done").toCompletableFuture().join();
            assertEquals(Execution.Limit.CPU_TIME, bash.limit(), bash.toString());
            assertEquals("'yes'\n", py(s, "kept").stdout());
            assertEquals(1, s.starts(), "no restart was needed");
        }
    }

    @Test
    void everyCellGetsItsWholeCpuSecondWhateverTheCellsBeforeUsed() {
        try (SandboxSession s = open()) {
            String burn = "import time\nt0 = time.process_time()\nwhile time.process_time() - t0 < %s: pass";
            // 0.8 s used in all: a limit truncated to whole seconds would leave the next cell 0.2 s.
            assertEquals(Execution.Limit.NONE, py(s, burn.formatted("0.75")).limit());
            Execution next = py(s, burn.formatted("0.6"));
            assertEquals(Execution.Limit.NONE, next.limit(), next.toString());
        }
    }

    @Test
    void aCrashOrACellThatWillNotStopRestartsTheInterpreterAndSaysSo() throws Exception {
        try (SandboxSession s = open()) {
            py(s, "lost = 1");
            Execution crash = py(s, "import os; os._exit(7)");
            assertEquals(7, crash.exitCode(), crash.toString());
            assertTrue(crash.stderr().contains("variables and files from earlier calls are gone"), crash.stderr());
            assertTrue(py(s, "lost").stderr().contains("NameError"), "a fresh interpreter");
            assertEquals(2, s.starts());
            // Catches even the interruption: the JVM kills the whole interpreter at the grace deadline.
            Execution stubborn = py(s, "import time\nwhile True:\n    try:\n        time.sleep(10)\n    except BaseException:\n        pass");
            assertEquals(Execution.Limit.WALL_TIME, stubborn.limit(), stubborn.toString());
            assertTrue(stubborn.stderr().contains("was killed"), stubborn.stderr());
            assertTrue(py(s, "1 + 1").stdout().equals("2\n"));
            assertEquals(3, s.starts());
            // A cell forging replies on the interpreter's channel only breaks its own session.
            Execution forged = py(s, "import os\nfor fd in sorted(int(f) for f in os.listdir('/proc/self/fd')):\n"
                    + "    if fd > 2:\n        try: os.write(fd, b'garbage\\n')\n        except OSError: pass");
            assertTrue(forged.stderr().contains("written to by the cell"), forged.toString());
            assertEquals("3\n", py(s, "1 + 2").stdout());
        }
        assertNothingLeftBehind(settings);
    }

    @Test
    void aSessionIsContainedLikeAFreshSandbox() throws Exception {
        try (SandboxSession s = open()) {
            Execution e = py(s, """
                    import os, socket
                    for host in ["127.0.0.1", "1.1.1.1"]:
                        try:
                            socket.create_connection((host, 53), timeout=1); print(host, "connected")
                        except OSError as err:
                            print(host, "blocked")
                    print(os.path.exists("/root"), os.path.exists("/etc/shadow"), sorted(os.environ))
                    """);
            assertEquals("127.0.0.1 blocked\n1.1.1.1 blocked\nFalse False ['HOME', 'LANG', 'PATH', 'PWD']\n", e.stdout(), e.toString());
            assertThrows(CompletionException.class, () -> s.get("../../etc/passwd").toCompletableFuture().join());
            assertThrows(CompletionException.class, () -> s.put("/usr/evil", new byte[1]).toCompletableFuture().join());
            Execution daemon = s.run(Language.BASH, "(exec -a agentswarm-canary sleep 60 &) ; setsid sleep 60 & echo started")
                    .toCompletableFuture().join();
            assertTrue(daemon.stdout().contains("started"), daemon.toString());
        }
        assertNothingLeftBehind(settings);
    }

    @Test
    void openersWaitForAFreeSessionAndClosedSessionsRefuseCalls() throws Exception {
        List<SandboxSession> held = new ArrayList<>();
        try {
            for (int i = 0; i < settings.sessions(); i++) held.add(open());
            CompletableFuture<SandboxSession> waiting = sandbox.openSession().toCompletableFuture();
            Thread.sleep(300);
            assertFalse(waiting.isDone(), "one more session waits while " + settings.sessions() + " are open");
            SandboxSession first = held.get(0);
            first.close();
            held.add(waiting.get(10, TimeUnit.SECONDS));
            assertEquals("1\n", py(held.get(held.size() - 1), "1").stdout());
            var refused = assertThrows(CompletionException.class, () -> py(first, "1"));
            assertTrue(refused.getCause().getMessage().contains("closed"), refused.getMessage());
        } finally {
            held.forEach(SandboxSession::close);
        }
        assertEquals(0, sandbox.openSessions());
    }

    @Test
    void anOpenerIsNotStarvedByAnInterpreterWarmingMeanwhile() throws Exception {
        // Opened back to back, the warm pool's refill competes with the openers for permits.
        for (int round = 0; round < 3; round++) {
            List<CompletableFuture<SandboxSession>> opening = new ArrayList<>();
            for (int i = 0; i < settings.sessions(); i++) opening.add(sandbox.openSession().toCompletableFuture());
            List<SandboxSession> got = new ArrayList<>();
            for (var f : opening) got.add(f.get(20, TimeUnit.SECONDS));
            got.forEach(SandboxSession::close);
        }
    }

    @Test
    void aSessionLeftIdleIsClosedAndItsPermitReturns() throws Exception {
        try (Sandbox idle = Sandbox.create(SandboxTest.settings("sessions = 1, warm-sessions = 0, session-idle-timeout = 1s"))) {
            SandboxSession forgotten = idle.openSession().toCompletableFuture().join();
            assertTrue(py(forgotten, "1").ok());
            SandboxSession next = idle.openSession().toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertFalse(forgotten.isOpen());
            var refused = assertThrows(CompletionException.class, () -> py(forgotten, "1"));
            assertTrue(refused.getCause().getMessage().contains("nobody called it"), refused.getMessage());
            next.close();
        }
    }

    @Test
    void aSessionSurvivesTheThreadThatOpenedIt() throws Exception {
        SandboxSession[] opened = new SandboxSession[1];
        Thread t = new Thread(() -> opened[0] = open());
        t.start();
        t.join();
        Thread.sleep(500);
        try (SandboxSession s = opened[0]) {
            assertTrue(py(s, "z = 1").ok());
            assertEquals(1, s.starts(), "bubblewrap's --die-with-parent did not follow the opening thread");
        }
    }
}
