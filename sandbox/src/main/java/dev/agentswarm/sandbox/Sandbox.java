package dev.agentswarm.sandbox;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

/**
 * Runs untrusted programs, one process tree per run, under bubblewrap: every namespace unshared (no
 * network, its own pids), the system read-only, a private size-capped tmpfs as the work folder, no
 * capabilities, a cleared environment, rlimits on CPU, memory, processes and file size, and a
 * wall-clock limit at which the whole tree is killed. At most {@code slots} run at once; later
 * callers queue. As root, each slot runs as its own uid, because root is exempt from the process
 * limit and a fork bomb would otherwise reach the host's. Plain Java: no actors; blocking work runs
 * on the sandbox's own threads.
 */
public final class Sandbox implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(Sandbox.class.getName());
    private static final int SIGKILL = 9;
    private static final int SIGXCPU = 24;
    private static final int SIGXFSZ = 25;

    private final SandboxSettings settings;
    private final boolean root;
    private final ExecutorService runners;
    private final ExecutorService drains;
    private final BlockingQueue<Integer> freeSlots = new LinkedBlockingQueue<>();

    private Sandbox(SandboxSettings settings, boolean root) {
        this.settings = settings;
        this.root = root;
        for (int i = 0; i < settings.slots(); i++) freeSlots.add(i);
        AtomicInteger n = new AtomicInteger();
        this.runners = Executors.newFixedThreadPool(settings.slots(), r -> daemon(r, "agentswarm-sandbox-" + n.incrementAndGet()));
        this.drains = Executors.newCachedThreadPool(r -> daemon(r, "agentswarm-sandbox-output"));
    }

    /**
     * A sandbox with these settings, after checking that the isolation works here: with
     * {@code bwrap}, a missing binary or one that cannot create namespaces is refused with how to fix it.
     */
    public static Sandbox create(SandboxSettings settings) {
        Sandbox s = new Sandbox(settings, isRoot());
        if (settings.isolation() == SandboxSettings.Isolation.NONE) {
            LOG.warning("agentswarm.sandbox.isolation = none: untrusted code runs WITHOUT isolation (only rlimits and timeouts)");
            return s;
        }
        if (!Files.isExecutable(Path.of(settings.bwrapPath()))) {
            s.close();
            throw new SandboxUnavailableException("bubblewrap is not installed at " + settings.bwrapPath()
                    + ": install it (apt-get install bubblewrap), or set agentswarm.sandbox.isolation = none to run code without isolation");
        }
        Execution probe = s.runNow(Language.BASH, "exit 0", "", 0);
        if (probe.exitCode() != 0) {
            s.close();
            throw new SandboxUnavailableException("bubblewrap cannot create its namespaces here (exit " + probe.exitCode() + ": "
                    + probe.stderr().strip() + "); allow user namespaces (sysctl kernel.unprivileged_userns_clone=1) or run as root");
        }
        return s;
    }

    public SandboxSettings settings() {
        return settings;
    }

    /** Runs {@code source} with {@code stdin} as its input; waits for a free slot first. */
    public CompletionStage<Execution> run(Language language, String source, String stdin) {
        List<String> program = language.command(source); // refuse oversized programs before queueing
        CompletableFuture<Execution> result = new CompletableFuture<>();
        runners.execute(() -> {
            Integer slot = freeSlots.poll();
            try {
                result.complete(runNow(program, stdin, slot == null ? 0 : slot));
            } catch (Throwable t) {
                result.completeExceptionally(t);
            } finally {
                if (slot != null) freeSlots.add(slot);
            }
        });
        return result;
    }

    private Execution runNow(Language language, String source, String stdin, int slot) {
        return runNow(language.command(source), stdin, slot);
    }

    private Execution runNow(List<String> program, String stdin, int slot) {
        Path workDir = null;
        try {
            // Without isolation there is no tmpfs: a host temp folder stands in, removed afterwards.
            if (settings.isolation() == SandboxSettings.Isolation.NONE) workDir = Files.createTempDirectory("agentswarm-sandbox");
            return execute(command(program, slot), stdin, workDir);
        } catch (IOException e) {
            throw new SandboxUnavailableException("cannot create a work folder: " + e.getMessage());
        } finally {
            if (workDir != null) deleteTree(workDir);
        }
    }

    private Execution execute(List<String> command, String stdin, Path workDir) {
        long start = System.nanoTime();
        Process p;
        try {
            ProcessBuilder pb = new ProcessBuilder(command);
            pb.environment().clear();
            pb.environment().put("PATH", "/usr/bin:/bin");
            if (workDir != null) pb.directory(workDir.toFile());
            p = pb.start();
        } catch (IOException e) {
            throw new SandboxUnavailableException("cannot start " + command.get(0) + ": " + e.getMessage());
        }
        Capped out = new Capped(settings.maxOutputBytes());
        Capped err = new Capped(settings.maxOutputBytes());
        Future<?> outDrain = drains.submit(() -> out.drain(p.getInputStream()));
        Future<?> errDrain = drains.submit(() -> err.drain(p.getErrorStream()));
        drains.submit(() -> feed(p.getOutputStream(), stdin));
        boolean timedOut = false;
        try {
            if (!p.waitFor(settings.wallTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                timedOut = true;
                killTree(p);
                p.waitFor();
            }
            outDrain.get(5, TimeUnit.SECONDS);
            errDrain.get(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            killTree(p);
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running a sandboxed program", e);
        } catch (Exception e) {
            // A daemon that kept the pipes open after its parent died: the tree is gone, the output is what it is.
            killTree(p);
        }
        long wall = (System.nanoTime() - start) / 1_000_000;
        int code = p.exitValue();
        String stderr = err.text();
        return new Execution(code, out.text(), stderr, out.cut(), err.cut(), wall, limit(timedOut, code, stderr, out.cut() || err.cut()));
    }

    private Execution.Limit limit(boolean timedOut, int code, String stderr, boolean cut) {
        if (timedOut) return Execution.Limit.WALL_TIME;
        if (code == 128 + SIGXCPU || code == 128 + SIGKILL) return Execution.Limit.CPU_TIME;
        if (code == 128 + SIGXFSZ || stderr.contains("File too large")) return Execution.Limit.FILE_SIZE;
        if (code != 0 && (stderr.contains("MemoryError") || stderr.contains("Cannot allocate memory")
                || stderr.contains("cannot allocate memory"))) {
            return Execution.Limit.MEMORY;
        }
        return cut ? Execution.Limit.OUTPUT : Execution.Limit.NONE;
    }

    /** The full command line: the slot's uid (as root), the rlimits, bubblewrap, the program. */
    List<String> command(List<String> program, int slot) {
        List<String> c = new ArrayList<>();
        boolean isolated = settings.isolation() == SandboxSettings.Isolation.BWRAP;
        if (root && isolated) {
            int uid = settings.firstUid() + slot;
            c.addAll(List.of("setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups", "--inh-caps=-all"));
        }
        c.addAll(List.of("prlimit", "--cpu=" + settings.cpuSeconds() + ":" + (settings.cpuSeconds() + 1), "--as=" + settings.memoryBytes(),
                "--nproc=" + settings.processes(), "--fsize=" + settings.fileSizeBytes(), "--core=0", "--"));
        if (isolated) {
            c.addAll(List.of(settings.bwrapPath(), "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
                    "--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/work", "--setenv", "LANG", "C.UTF-8",
                    "--ro-bind", "/usr", "/usr"));
            for (String dir : List.of("/bin", "/sbin", "/lib", "/lib32", "/lib64")) {
                Path p = Path.of(dir);
                try {
                    if (Files.isSymbolicLink(p)) c.addAll(List.of("--symlink", Files.readSymbolicLink(p).toString(), dir));
                    else if (Files.isDirectory(p)) c.addAll(List.of("--ro-bind", dir, dir));
                } catch (IOException e) {
                    throw new SandboxUnavailableException("cannot read " + dir + ": " + e.getMessage());
                }
            }
            c.addAll(List.of("--proc", "/proc", "--dev", "/dev", "--size", Long.toString(settings.workSizeBytes()), "--tmpfs", "/work",
                    "--size", Long.toString(16L << 20), "--tmpfs", "/tmp", "--chdir", "/work"));
        }
        c.addAll(program);
        return c;
    }

    private static void deleteTree(Path dir) {
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            LOG.warning("could not remove the work folder " + dir + ": " + e.getMessage());
        }
    }

    private static void killTree(Process p) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
    }

    private static void feed(OutputStream in, String stdin) {
        try (in) {
            if (stdin != null && !stdin.isEmpty()) in.write(stdin.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            // The program exited without reading its input: nothing to do.
        }
    }

    private static boolean isRoot() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) return line.split("\\s+")[1].equals("0");
            }
        } catch (IOException e) {
            // Not Linux: bubblewrap will not run either, and says so.
        }
        return false;
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    @Override
    public void close() {
        runners.shutdownNow();
        drains.shutdownNow();
    }

    /** One stream, kept up to a cap; the rest is read (so the program never blocks on a full pipe) and counted. */
    private static final class Capped {
        private final int cap;
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
        private long dropped;

        Capped(int cap) {
            this.cap = cap;
        }

        void drain(InputStream in) {
            byte[] buf = new byte[8192];
            try (in) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    synchronized (this) {
                        int keep = (int) Math.max(0, Math.min(n, cap - kept.size()));
                        kept.write(buf, 0, keep);
                        dropped += n - keep;
                    }
                }
            } catch (IOException e) {
                // The process was killed: keep what arrived.
            }
        }

        synchronized boolean cut() {
            return dropped > 0;
        }

        synchronized String text() {
            String s = kept.toString(StandardCharsets.UTF_8);
            return dropped > 0 ? s + "\n[… " + dropped + " more bytes cut]" : s;
        }
    }
}
