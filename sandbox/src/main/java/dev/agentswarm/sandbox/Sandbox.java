package dev.agentswarm.sandbox;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

/**
 * Runs untrusted programs under bubblewrap: every namespace unshared (no network, its own pids),
 * the system read-only, a private size-capped tmpfs as the work folder, no capabilities, a cleared
 * environment, rlimits on CPU, memory, processes and file size, and a wall-clock limit at which the
 * whole tree is killed. Two ways: {@link #run} starts a fresh sandbox per program;
 * {@link #openSession} hands out a stateful one (a code interpreter kept for an episode), from a
 * warm pool of interpreters started ahead. At most {@code slots} programs or cells execute at once
 * and at most {@code sessions} interpreters live at once; later callers wait (their stages complete
 * later), they are never refused. As root, every slot and session runs as its own uid, because
 * root is exempt from the process limit and a fork bomb would otherwise reach the host's. Plain
 * Java: no actors; blocking work runs on the sandbox's own threads.
 */
public final class Sandbox implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(Sandbox.class.getName());
    static final int SIGKILL = 9;
    static final int SIGXCPU = 24;
    private static final int SIGXFSZ = 25;
    /** How long past a cell's own limit the JVM waits before it kills the interpreter (the driver interrupts the cell first). */
    static final long CELL_GRACE_MILLIS = 2000;
    private static final long START_TIMEOUT_MILLIS = 15_000;
    private static final String DRIVER = driverSource();
    private static final Map<SandboxSettings, Sandbox> SHARED = new ConcurrentHashMap<>();

    private final SandboxSettings settings;
    private final Confinement confinement;
    private final ExecutorService blocking;
    /**
     * Starts every session interpreter. bubblewrap's --die-with-parent follows the thread that
     * started it (PR_SET_PDEATHSIG), so an interpreter started on a pooled thread would be killed
     * when that thread retires; this one lives as long as the sandbox.
     */
    private final ExecutorService spawner;
    private final ScheduledExecutorService timer;
    private final Permits executionSlots;
    private final Permits sessionPermits;
    private final ConcurrentLinkedDeque<Warm> warm = new ConcurrentLinkedDeque<>();
    private final AtomicInteger warming = new AtomicInteger();
    private final Set<SandboxSession> open = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /** An interpreter started ahead, holding its session permit. */
    private record Warm(int permit, Interpreter interpreter) {}

    private Sandbox(SandboxSettings settings, boolean root) {
        this.settings = settings;
        this.confinement = new Confinement(settings, root);
        this.executionSlots = new Permits(settings.slots());
        this.sessionPermits = new Permits(settings.sessions());
        AtomicInteger n = new AtomicInteger();
        this.blocking = Executors.newCachedThreadPool(r -> daemon(r, "agentswarm-sandbox-" + n.incrementAndGet()));
        this.spawner = Executors.newSingleThreadExecutor(r -> daemon(r, "agentswarm-sandbox-spawner"));
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "agentswarm-sandbox-timer"));
        long every = Math.max(1000, Math.min(30_000, settings.sessionIdleTimeout().toMillis() / 4));
        timer.scheduleWithFixedDelay(this::closeIdleSessions, every, every, TimeUnit.MILLISECONDS);
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
            s.shutdown();
            throw new SandboxUnavailableException("bubblewrap is not installed at " + settings.bwrapPath()
                    + ": install it (apt-get install bubblewrap), or set agentswarm.sandbox.isolation = none to run code without isolation");
        }
        Execution probe = s.runNow(Language.BASH.command("exit 0"), "", 0);
        if (probe.exitCode() != 0 && probe.stderr().contains("disable-userns")) {
            s.shutdown();
            throw new SandboxUnavailableException("bubblewrap at " + settings.bwrapPath() + " is older than 0.8 and cannot forbid"
                    + " nested user namespaces (" + probe.stderr().strip() + "): install bubblewrap 0.8 or later");
        }
        if (probe.exitCode() != 0) {
            s.shutdown();
            throw new SandboxUnavailableException("bubblewrap cannot create its namespaces here (exit " + probe.exitCode() + ": "
                    + probe.stderr().strip() + "); allow user namespaces (sysctl kernel.unprivileged_userns_clone=1) or run as root");
        }
        return s;
    }

    /**
     * The one sandbox of this JVM for these settings, created on first use and kept until the JVM
     * exits: every tool and suite on a node shares its slots, sessions and uids.
     */
    public static Sandbox shared(SandboxSettings settings) {
        return SHARED.computeIfAbsent(settings, Sandbox::create);
    }

    /** The JVM's sandbox for these settings if a call has started it; never starts one (a metrics scrape asks). */
    public static java.util.Optional<Sandbox> sharedIfStarted(SandboxSettings settings) {
        return java.util.Optional.ofNullable(SHARED.get(settings));
    }

    public SandboxSettings settings() {
        return settings;
    }

    /** Runs {@code source} in a fresh sandbox with {@code stdin} as its input; waits for a free slot first. */
    public CompletionStage<Execution> run(Language language, String source, String stdin) {
        List<String> program = language.command(source); // refuse oversized programs before queueing
        if (closed) return CompletableFuture.failedFuture(new IllegalStateException("the sandbox is closed"));
        return executionSlots.acquire().thenApplyAsync(slot -> {
            try {
                return runNow(program, stdin, slot);
            } finally {
                executionSlots.release(slot);
            }
        }, blocking);
    }

    /**
     * A stateful session: a warm interpreter at once when one is ready, else a new one once fewer
     * than {@code sessions} are alive. Close it when done.
     */
    public CompletionStage<SandboxSession> openSession() {
        if (closed) return CompletableFuture.failedFuture(new IllegalStateException("the sandbox is closed"));
        SandboxSession ready = takeWarm();
        if (ready != null) {
            refill();
            return CompletableFuture.completedFuture(ready);
        }
        CompletionStage<SandboxSession> s = sessionPermits.acquire().thenApplyAsync(permit -> {
            SandboxSession warmed = takeWarm(); // one may have become ready while this opener waited
            if (warmed != null) {
                sessionPermits.release(permit);
                return warmed;
            }
            try {
                return opened(new SandboxSession(this, permit, startInterpreter(permit)));
            } catch (RuntimeException e) {
                sessionPermits.release(permit);
                throw e;
            }
        }, blocking);
        refill();
        return s;
    }

    /** A session on a live warm interpreter, or null when none is ready. */
    private SandboxSession takeWarm() {
        Warm w;
        while ((w = warm.poll()) != null) {
            if (w.interpreter().alive()) return opened(new SandboxSession(this, w.permit(), w.interpreter()));
            w.interpreter().kill();
            sessionPermits.release(w.permit());
        }
        return null;
    }

    private SandboxSession opened(SandboxSession s) {
        open.add(s);
        if (closed) s.close("the sandbox was closed");
        return s;
    }

    /** Called by a session as it closes: its permit goes to the next opener or to a new warm interpreter. */
    void sessionClosed(SandboxSession s, int permit) {
        open.remove(s);
        sessionPermits.release(permit);
        refill();
    }

    /** Starts interpreters ahead up to {@code warm-sessions}, only with permits nobody waits for. */
    private void refill() {
        while (!closed && warm.size() + warming.get() < settings.warmSessions()) {
            OptionalInt permit = sessionPermits.tryAcquire();
            if (permit.isEmpty()) return;
            warming.incrementAndGet();
            blocking.execute(() -> {
                try {
                    warm.add(new Warm(permit.getAsInt(), startInterpreter(permit.getAsInt())));
                    // Openers that queued for a permit while this one started would wait for a session
                    // to close; the warm interpreters' permits go to them instead.
                    if (closed || sessionPermits.waiters() > 0) killWarm();
                } catch (RuntimeException e) {
                    sessionPermits.release(permit.getAsInt());
                    LOG.warning("could not start a warm sandbox interpreter: " + e.getMessage());
                } finally {
                    warming.decrementAndGet();
                }
            });
        }
    }

    /** A new session interpreter as the uid of session permit {@code permit}, ready for cells. */
    Interpreter startInterpreter(int permit) {
        Path workDir = null;
        try {
            if (settings.isolation() == SandboxSettings.Isolation.NONE) workDir = Files.createTempDirectory("agentswarm-session");
            List<String> driver = List.of("/usr/bin/python3", "-I", "-S", "-c", DRIVER, Integer.toString(settings.maxOutputBytes()),
                    Integer.toString(settings.cpuSeconds()), Long.toString(settings.fileSizeBytes()));
            List<String> command = command(driver, settings.slots() + permit, settings.sessionCpuSeconds(), settings.sessionCpuSeconds());
            Path dir = workDir;
            Process p = spawner.submit(() -> start(command, dir)).get();
            CappedOutput log = new CappedOutput(4096);
            blocking.execute(() -> log.drain(p.getErrorStream()));
            long replyBytes = 12L * settings.maxOutputBytes() + settings.fileSizeBytes() * 4 / 3 + 65_536;
            int index = settings.slots() + permit;
            Interpreter interpreter = new Interpreter(p, log, workDir, (int) Math.min(Integer.MAX_VALUE - 8, replyBytes), timer,
                    () -> confinement.killLeftovers(index));
            try {
                interpreter.awaitReady(START_TIMEOUT_MILLIS);
            } catch (Interpreter.Stopped e) {
                throw new SandboxUnavailableException("the session interpreter did not start: " + e.getMessage());
            }
            return interpreter;
        } catch (IOException e) {
            if (workDir != null) deleteTree(workDir);
            throw new SandboxUnavailableException("cannot create a work folder: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting a sandbox session", e);
        } catch (ExecutionException e) {
            if (workDir != null) deleteTree(workDir);
            throw e.getCause() instanceof SandboxUnavailableException u ? u : new SandboxUnavailableException(e.getCause().getMessage());
        }
    }

    private void closeIdleSessions() {
        long limit = settings.sessionIdleTimeout().toNanos();
        for (SandboxSession s : open) {
            if (s.idleNanos() > limit) s.close("nobody called it for " + settings.sessionIdleTimeout().toSeconds() + " s");
        }
    }

    Permits executionSlots() {
        return executionSlots;
    }

    Executor blocking() {
        return blocking;
    }

    /** Execution slots running a program or a cell now, of {@code slots}. */
    public int slotsInUse() {
        return settings.slots() - executionSlots.available();
    }

    /** Sessions open now (not counting warm interpreters nobody has taken). */
    public int openSessions() {
        return open.size();
    }

    private Execution runNow(List<String> program, String stdin, int slot) {
        Path workDir = null;
        try {
            // Without isolation there is no tmpfs: a host temp folder stands in, removed afterwards.
            if (settings.isolation() == SandboxSettings.Isolation.NONE) workDir = Files.createTempDirectory("agentswarm-sandbox");
            return execute(command(program, slot, settings.cpuSeconds(), settings.cpuSeconds() + 1), slot, stdin, workDir);
        } catch (IOException e) {
            throw new SandboxUnavailableException("cannot create a work folder: " + e.getMessage());
        } finally {
            if (workDir != null) deleteTree(workDir);
        }
    }

    private Execution execute(List<String> command, int slot, String stdin, Path workDir) {
        long oomKillsBefore = confinement.oomKills(slot);
        long start = System.nanoTime();
        Process p = start(command, workDir);
        CappedOutput out = new CappedOutput(settings.maxOutputBytes());
        CappedOutput err = new CappedOutput(settings.maxOutputBytes());
        Future<?> outDrain = blocking.submit(() -> out.drain(p.getInputStream()));
        Future<?> errDrain = blocking.submit(() -> err.drain(p.getErrorStream()));
        blocking.execute(() -> feed(p.getOutputStream(), stdin));
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
        } finally {
            confinement.killLeftovers(slot);
        }
        long wall = (System.nanoTime() - start) / 1_000_000;
        int code = p.exitValue();
        String stderr = err.text();
        boolean oomKilled = confinement.oomKills(slot) > oomKillsBefore;
        return new Execution(code, out.text(), stderr, out.cut(), err.cut(), wall,
                limit(timedOut, oomKilled, code, stderr, out.cut() || err.cut()));
    }

    /** Starts {@code command} with only PATH in its environment, in {@code workDir} when given. */
    private static Process start(List<String> command, Path workDir) {
        try {
            ProcessBuilder pb = new ProcessBuilder(command);
            pb.environment().clear();
            pb.environment().put("PATH", "/usr/bin:/bin");
            if (workDir != null) pb.directory(workDir.toFile());
            return pb.start();
        } catch (IOException e) {
            throw new SandboxUnavailableException("cannot start " + command.get(0) + ": " + e.getMessage());
        }
    }

    private Execution.Limit limit(boolean timedOut, boolean oomKilled, int code, String stderr, boolean cut) {
        if (timedOut) return Execution.Limit.WALL_TIME;
        if (oomKilled) return Execution.Limit.MEMORY; // the slot's processes together passed memory.max
        if (code == 128 + SIGXCPU || code == 128 + SIGKILL) return Execution.Limit.CPU_TIME;
        if (code == 128 + SIGXFSZ || stderr.contains("File too large")) return Execution.Limit.FILE_SIZE;
        if (code != 0 && (stderr.contains("MemoryError") || stderr.contains("Cannot allocate memory")
                || stderr.contains("cannot allocate memory"))) {
            return Execution.Limit.MEMORY;
        }
        return cut ? Execution.Limit.OUTPUT : Execution.Limit.NONE;
    }

    /** The full command line for uid index {@code index}: see {@link Confinement}. */
    List<String> command(List<String> program, int index, int cpuSoft, int cpuHard) {
        return confinement.command(program, index, cpuSoft, cpuHard);
    }

    /** What confines programs here (the memory cap's kind, seccomp), for logs and the sandbox command. */
    public String confinement() {
        return confinement.describe();
    }

    /** OOM kills so far in the cgroup of uid index {@code index} (a slot, or a session after the slots); 0 without cgroups. */
    long oomKills(int index) {
        return confinement.oomKills(index);
    }

    /** Whether each slot has a cgroup v2 group here (else the rlimits alone hold). */
    boolean confinementHasCgroups() {
        return confinement.hasCgroups();
    }

    static void deleteTree(Path dir) {
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

    private static String driverSource() {
        try (InputStream in = Sandbox.class.getResourceAsStream("session_driver.py")) {
            if (in == null) throw new IllegalStateException("session_driver.py is missing from the sandbox jar");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read session_driver.py: " + e.getMessage(), e);
        }
    }

    private void killWarm() {
        Warm w;
        while ((w = warm.poll()) != null) {
            w.interpreter().kill();
            sessionPermits.release(w.permit());
        }
    }

    /** Kills every session and warm interpreter and stops the sandbox's threads. */
    @Override
    public void close() {
        SHARED.remove(settings, this);
        shutdown();
    }

    /** Stops everything without touching {@code SHARED}: {@link #create} runs inside its computeIfAbsent. */
    private void shutdown() {
        closed = true;
        for (SandboxSession s : open) s.close("the sandbox was closed");
        killWarm();
        timer.shutdownNow();
        spawner.shutdownNow();
        blocking.shutdownNow();
        confinement.close();
    }
}
