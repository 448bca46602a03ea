package dev.agentswarm.sandbox;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

/**
 * The command line that confines one sandboxed program, and what the kernel keeps beside it: a
 * first shell (as the JVM's user) that sets {@code oom_score_adj} to 1000, so that under memory
 * pressure the kernel's OOM killer takes sandboxed programs before the JVM, moves itself into the
 * slot's cgroup where there is one, and opens the seccomp filter for bubblewrap; then the uid of
 * the slot (as root), the rlimits, and bubblewrap with a user namespace of its own in which no
 * further namespace may be made ({@code --disable-userns}) and the seccomp deny-list loaded.
 * Everything that shell does happens before the program exists, so the program cannot race it.
 */
final class Confinement implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(Confinement.class.getName());
    /** The first shell: $1 the cgroup.procs to join or -, $2 the seccomp filter to open on fd 3 or -, then the command. */
    static final String PRELUDE = "set -e; echo 1000 > /proc/self/oom_score_adj; [ \"$1\" = - ] || echo $$ > \"$1\"; "
            + "[ \"$2\" = - ] || exec 3< \"$2\"; shift 2; exec \"$@\"";

    /** Numbers the groups of this JVM's sandboxes (tests and tools may open several at once). */
    private static final AtomicInteger GROUPS = new AtomicInteger();

    private final SandboxSettings settings;
    private final boolean root;
    private final Path seccomp;
    private final SlotCgroups cgroups;
    private final String cgroupsWhyNot;

    Confinement(SandboxSettings settings, boolean root) {
        this.settings = settings;
        this.root = root;
        boolean isolated = settings.isolation() == SandboxSettings.Isolation.BWRAP;
        this.seccomp = isolated ? Bubblewrap.seccompFilter() : null;
        if (isolated && seccomp == null) {
            LOG.warning("no seccomp filter for " + System.getProperty("os.arch") + ": sandboxed programs may make any system call");
        }
        SlotCgroups.Opened opened = settings.cgroups()
                ? SlotCgroups.openForThisProcess("agentswarm-sandbox-" + ProcessHandle.current().pid() + "-" + GROUPS.incrementAndGet(),
                        settings.slots() + settings.sessions(), settings.memoryBytes(), settings.processes())
                : new SlotCgroups.Unavailable("agentswarm.sandbox.cgroups = false");
        this.cgroups = opened instanceof SlotCgroups.Ready r ? r.cgroups() : null;
        this.cgroupsWhyNot = opened instanceof SlotCgroups.Unavailable u ? u.reason() : null;
        LOG.info("sandbox confinement: " + describe()); // which memory cap held here: cgroups or the rlimits alone, and why
    }

    /** What holds here, for the log: the memory cap's kind, seccomp, user namespaces. */
    String describe() {
        String memory = cgroups != null
                ? "cgroup v2 per slot (memory.max " + settings.memoryBytes() + " bytes, pids.max " + settings.processes() + ")"
                : "rlimit per process (" + settings.memoryBytes() + " bytes of address space; no cgroups: " + cgroupsWhyNot + ")";
        String filter = settings.isolation() == SandboxSettings.Isolation.NONE ? "no seccomp, no namespaces (isolation none)"
                : seccomp != null ? "seccomp deny-list, no nested user namespaces"
                : "no seccomp filter for " + System.getProperty("os.arch") + ", no nested user namespaces";
        return memory + "; " + filter + "; oom_score_adj 1000";
    }

    boolean hasCgroups() {
        return cgroups != null;
    }

    /** OOM kills so far in the group of uid index {@code index}; 0 without cgroups. */
    long oomKills(int index) {
        return cgroups == null ? 0 : cgroups.oomKills(index);
    }

    /** Kills whatever is left in the group of uid index {@code index}; without cgroups the caller's tree walk is all there is. */
    void killLeftovers(int index) {
        if (cgroups != null) cgroups.killAll(index);
    }

    /**
     * The full command line for uid index {@code index} (a slot, or a session after the slots):
     * the prelude, the uid (as root), the rlimits with these CPU seconds, bubblewrap, the program.
     */
    List<String> command(List<String> program, int index, int cpuSoft, int cpuHard) {
        List<String> c = new ArrayList<>(List.of("/bin/sh", "-c", PRELUDE, "sh",
                cgroups == null ? "-" : cgroups.slot(index).resolve("cgroup.procs").toString(),
                seccomp == null ? "-" : seccomp.toString()));
        boolean isolated = settings.isolation() == SandboxSettings.Isolation.BWRAP;
        if (root && isolated) {
            int uid = settings.firstUid() + index;
            c.addAll(List.of("setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups", "--inh-caps=-all"));
        }
        c.addAll(List.of("prlimit", "--cpu=" + cpuSoft + ":" + cpuHard, "--as=" + settings.memoryBytes(),
                "--nproc=" + settings.processes(), "--fsize=" + settings.fileSizeBytes(), "--core=0", "--"));
        if (isolated) {
            c.addAll(Bubblewrap.common(settings.bwrapPath(), false, seccomp != null));
            c.addAll(List.of("--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/work", "--setenv", "LANG", "C.UTF-8"));
            for (String dir : settings.readOnlyBinds()) c.addAll(List.of("--ro-bind-try", dir, dir));
            c.addAll(List.of("--proc", "/proc", "--dev", "/dev", "--size", Long.toString(settings.workSizeBytes()), "--tmpfs", "/work",
                    "--size", Long.toString(16L << 20), "--tmpfs", "/tmp", "--chdir", "/work"));
        }
        c.addAll(program);
        return c;
    }

    @Override
    public void close() {
        if (cgroups != null) cgroups.close();
    }
}
