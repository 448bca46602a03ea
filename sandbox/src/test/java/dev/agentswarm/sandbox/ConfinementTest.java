package dev.agentswarm.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Model code that tries to leave the sandbox through the kernel: a nested user namespace, a
 * namespace by clone, the system calls of the deny-list, and a fork bomb and a memory hog at once.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConfinementTest {

    private final SandboxSettings settings = SandboxTest.settings(
            "wall-timeout = 10s, cpu-seconds = 3, memory = 128MiB, processes = 16, work-size = 4MiB, max-output = 4KiB, slots = 2");
    private final Sandbox sandbox = Sandbox.create(settings);

    @AfterAll
    void close() {
        sandbox.close();
    }

    private Execution sh(String code) {
        return sandbox.run(Language.BASH, code, "").toCompletableFuture().join();
    }

    private Execution py(String code) {
        return sandbox.run(Language.PYTHON, code, "").toCompletableFuture().join();
    }

    @Test
    void noNestedUserNamespaceNorAnyOtherNamespace() {
        Execution user = sh("unshare -U true && echo ESCAPED; unshare -Ur id 2>&1 && echo ESCAPED; echo done");
        assertFalse(user.stdout().contains("ESCAPED"), user.toString());
        assertTrue(user.stderr().contains("Operation not permitted") || user.stdout().contains("Operation not permitted"), user.toString());
        Execution clone = py("""
                import ctypes, os
                libc = ctypes.CDLL(None, use_errno=True)
                for name, flag in [("user", 0x10000000), ("net", 0x40000000), ("mount", 0x00020000)]:
                    r = libc.unshare(flag)
                    print(name, r, os.strerror(ctypes.get_errno()))
                r = libc.mount(b"none", b"/work", b"tmpfs", 0, None)
                print("mount", r, os.strerror(ctypes.get_errno()))
                r = libc.syscall(56 if os.uname().machine == "x86_64" else 220, 0x10000000 | 17, 0, 0, 0, 0)
                print("clone", r, os.strerror(ctypes.get_errno()))
                """);
        assertEquals(5, clone.stdout().lines().filter(l -> l.endsWith(" -1 Operation not permitted")).count(), clone.toString());
    }

    @Test
    void ordinaryProgramsStillRunThreadsProcessesAndAll() {
        Execution e = py("""
                import subprocess, threading, multiprocessing, os
                out = []
                t = threading.Thread(target=lambda: out.append("thread")); t.start(); t.join()
                out.append(subprocess.run(["echo", "child"], capture_output=True, text=True).stdout.strip())
                with multiprocessing.Pool(2) as p: out.append(str(sum(p.map(abs, [-1, -2]))))
                print(" ".join(out))
                """);
        assertTrue(e.ok(), e.toString());
        assertEquals("thread child 3", e.stdout().strip());
    }

    @Test
    void theKernelKillsSandboxedProgramsBeforeTheJvm() throws Exception {
        assertEquals("1000", sh("cat /proc/self/oom_score_adj").stdout().strip());
        try (Sandbox open = Sandbox.create(SandboxTest.settings("isolation = none, wall-timeout = 3s"))) {
            Execution none = open.run(Language.BASH, "cat /proc/self/oom_score_adj", "").toCompletableFuture().join();
            assertEquals("1000", none.stdout().strip(), "without isolation too: " + none);
        }
        assertNotEquals("1000", Files.readString(Path.of("/proc/self/oom_score_adj")).strip(), "the JVM itself is not marked");
    }

    @Test
    void aForkBombAndAMemoryHogAtOnceLeaveTheJvmAndTheSandboxStanding() throws Exception {
        CompletableFuture<Execution> bomb = sandbox.run(Language.BASH, ":(){ :|:& };: ; sleep 2; echo survived", "").toCompletableFuture();
        // Every process it may make takes all the memory it can, each to its own limit, at once.
        CompletableFuture<Execution> hog = sandbox.run(Language.PYTHON, """
                import os
                kids = []
                for _ in range(4):
                    try:
                        pid = os.fork()
                    except OSError:
                        break
                    if pid == 0:
                        chunks = []
                        try:
                            while True: chunks.append(bytearray(8 << 20))
                        except MemoryError:
                            os._exit(3)
                    kids.append(pid)
                codes = [os.waitpid(k, 0)[1] for k in kids]
                print(len(kids), "hogs", sorted(set(codes)))
                """, "").toCompletableFuture();
        Execution b = bomb.join();
        Execution h = hog.join();
        assertTrue(b.wallMillis() < 12_000, b.toString());
        assertFalse(h.stdout().isEmpty() && h.limit() == Execution.Limit.NONE, h.toString());
        if (sandbox.confinementHasCgroups()) {
            // 4 × 128 MiB would pass the slot's 128 MiB: the group's cap stops them together.
            assertEquals(Execution.Limit.MEMORY, h.limit(), h.toString());
        } else {
            assertTrue(h.stdout().contains("hogs"), "each hog stopped at its own rlimit with a MemoryError: " + h);
        }
        assertTrue(py("print(6 * 7)").stdout().contains("42"), "the sandbox still runs programs");
        SandboxTest.assertNothingLeftBehind(settings);
    }

    @Test
    void slotGroupsHoldWhereTheMachineAllowsThem() {
        Assumptions.assumeTrue(sandbox.confinementHasCgroups(),
                () -> "no cgroup v2 with memory and pids here, the rlimits alone hold: " + sandbox.confinement());
        assertTrue(sandbox.confinement().startsWith("cgroup v2 per slot"), sandbox.confinement());
        // Four processes of 80 MiB each are each under the 128 MiB rlimit, and together over the group's 128 MiB.
        Execution e = py("""
                import os, time
                for _ in range(3):
                    if os.fork() == 0: break
                x = bytearray(80 << 20)
                for i in range(0, len(x), 4096): x[i] = 1
                time.sleep(1)
                print("held")
                """);
        assertEquals(Execution.Limit.MEMORY, e.limit(), e.toString());
        // A session's cell: its processes and the interpreter share the session's group.
        try (SandboxSession s = sandbox.openSession().toCompletableFuture().join()) {
            Execution cell = s.run(Language.BASH, "for i in 1 2 3 4; do python3 -c 'x = bytearray(80 << 20); import time; time.sleep(1)' & done;"
                    + " wait").toCompletableFuture().join();
            assertEquals(Execution.Limit.MEMORY, cell.limit(), cell.toString());
        }
    }

    @Test
    void withoutUsableCgroupsTheSandboxSaysSoAndKeepsItsRlimits(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("cgroup.controllers"), "cpu io hugetlb\n");
        var none = assertInstanceOf(SlotCgroups.Unavailable.class, SlotCgroups.open(dir, "x", 2, 1 << 27, 16));
        assertTrue(none.reason().contains("[cpu io hugetlb], not memory and pids"), none.reason());
        var missing = assertInstanceOf(SlotCgroups.Unavailable.class, SlotCgroups.open(dir.resolve("absent"), "x", 2, 1 << 27, 16));
        assertTrue(missing.reason().contains("cannot read"), missing.reason());
        try (Sandbox off = Sandbox.create(SandboxTest.settings("cgroups = false, wall-timeout = 3s, memory = 64MiB"))) {
            assertFalse(off.confinementHasCgroups());
            assertTrue(off.confinement().startsWith("rlimit per process") && off.confinement().contains("cgroups = false"),
                    off.confinement());
            Execution big = off.run(Language.PYTHON, "x = bytearray(256 << 20)", "").toCompletableFuture().join();
            assertEquals(Execution.Limit.MEMORY, big.limit(), big.toString());
        }
    }

    /** The group layout on a folder that stands in for a cgroup v2 one (the kernel's files are plain files here). */
    @Test
    void slotGroupsAreMadeWithTheirLimitsBelowTheJvmsGroup(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("cgroup.controllers"), "cpuset cpu io memory pids\n");
        Files.writeString(dir.resolve("cgroup.subtree_control"), "cpu\n");
        var ready = assertInstanceOf(SlotCgroups.Ready.class, SlotCgroups.open(dir, "agentswarm-sandbox-7", 3, 128L << 20, 16));
        SlotCgroups groups = ready.cgroups();
        assertEquals("+memory +pids", Files.readString(dir.resolve("cgroup.subtree_control")), "the controllers handed down");
        Path group = dir.resolve("agentswarm-sandbox-7");
        assertEquals("+memory +pids", Files.readString(group.resolve("cgroup.subtree_control")));
        for (int i = 0; i < 3; i++) {
            assertEquals(group.resolve("slot-" + i), groups.slot(i));
            assertEquals(Long.toString(128L << 20), Files.readString(groups.slot(i).resolve("memory.max")));
            assertEquals("16", Files.readString(groups.slot(i).resolve("pids.max")));
        }
        Files.writeString(groups.slot(1).resolve("memory.events"), "low 0\nhigh 0\nmax 9\noom 2\noom_kill 2\n");
        assertEquals(2, groups.oomKills(1));
        assertEquals(0, groups.oomKills(0), "no events file: nothing counted");
        // The kernel removes a group's files with it; here they are removed first, and then every group folder goes.
        try (var files = Files.walk(group)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) Files.delete(f);
        }
        groups.close();
        assertFalse(Files.exists(group), "the groups are removed on close");
        // A second sandbox of the same JVM finds the controllers on and adds its own group beside.
        Files.writeString(dir.resolve("cgroup.subtree_control"), "memory pids\n");
        var again = assertInstanceOf(SlotCgroups.Ready.class, SlotCgroups.open(dir, "agentswarm-sandbox-8", 1, 1 << 27, 4));
        assertEquals("memory pids\n", Files.readString(dir.resolve("cgroup.subtree_control")), "left as it was");
        try (var files = Files.walk(dir.resolve("agentswarm-sandbox-8"))) {
            for (Path f : files.filter(Files::isRegularFile).toList()) Files.delete(f);
        }
        again.cgroups().close();
    }

    @Test
    void aBubblewrapTooOldToForbidNestedUserNamespacesIsRefusedSayingSo(@TempDir Path dir) throws Exception {
        // A stand-in for bubblewrap before 0.8, which does not know the option; as root it runs as a slot's uid.
        Path old = dir.resolve("bwrap");
        Files.writeString(old, "#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = --disable-userns ] && { echo \"bwrap: Unknown option"
                + " --disable-userns\" >&2; exit 1; }; done\nexec /usr/bin/bwrap \"$@\"\n");
        Files.setPosixFilePermissions(old, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        var refused = org.junit.jupiter.api.Assertions.assertThrows(SandboxUnavailableException.class,
                () -> Sandbox.create(SandboxTest.settings("bwrap-path = \"" + old + "\"")));
        assertTrue(refused.getMessage().contains("older than 0.8") && refused.getMessage().contains("install bubblewrap 0.8 or later"),
                refused.getMessage());
    }
}
