package dev.agentswarm.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * The bubblewrap arguments every confined program of a node shares, the sandbox's and a sandboxed
 * MCP server's: every namespace its own (the network only when asked for), a user namespace in
 * which no further one can be made, no capabilities, a new session (no TIOCSTI into the node's
 * terminal), death with the parent, the system folders read-only and the seccomp deny-list on
 * {@link #SECCOMP_FD}, which {@link #withSeccompFd} opens.
 */
public final class Bubblewrap {

    /** The descriptor bubblewrap reads the filter from. */
    public static final int SECCOMP_FD = 3;
    private static final String OPEN_FD = "exec 3< \"$1\"; shift; exec \"$@\"";
    private static volatile Path sharedFilter;

    private Bubblewrap() {}

    /**
     * {@code bwrap} and the common arguments; the caller adds its binds, {@code --chdir} and the program.
     * {@code seccomp}: whether {@code --seccomp 3} is passed (a filter exists for this machine).
     */
    public static List<String> common(String bwrapPath, boolean network, boolean seccomp) {
        List<String> c = new ArrayList<>(List.of(bwrapPath, "--unshare-all", "--unshare-user", "--disable-userns"));
        if (network) c.add("--share-net");
        c.addAll(List.of("--die-with-parent", "--new-session", "--cap-drop", "ALL", "--ro-bind", "/usr", "/usr"));
        if (seccomp) c.addAll(List.of("--seccomp", Integer.toString(SECCOMP_FD)));
        for (String dir : List.of("/bin", "/sbin", "/lib", "/lib32", "/lib64")) {
            Path p = Path.of(dir);
            try {
                if (Files.isSymbolicLink(p)) c.addAll(List.of("--symlink", Files.readSymbolicLink(p).toString(), dir));
                else if (Files.isDirectory(p)) c.addAll(List.of("--ro-bind", dir, dir));
            } catch (IOException e) {
                throw new SandboxUnavailableException("cannot read " + dir + ": " + e.getMessage());
            }
        }
        return c;
    }

    /** {@code command} (bubblewrap first) behind a shell that opens {@code filter} on descriptor 3 and execs it. */
    public static List<String> withSeccompFd(Path filter, List<String> command) {
        List<String> c = new ArrayList<>(List.of("/bin/sh", "-c", OPEN_FD, "sh", filter.toString()));
        c.addAll(command);
        return c;
    }

    /**
     * The deny-list for this machine in a file of this JVM (written once, readable by its user
     * only, removed at exit); null on an architecture without a filter.
     */
    public static Path seccompFilter() {
        Path f = sharedFilter;
        if (f != null && Files.exists(f)) return f;
        synchronized (Bubblewrap.class) {
            if (sharedFilter != null && Files.exists(sharedFilter)) return sharedFilter;
            SeccompFilter.Arch arch = SeccompFilter.Arch.host();
            if (arch == null) return null;
            try {
                f = Files.createTempFile("agentswarm-seccomp", ".bpf",
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
                Files.write(f, SeccompFilter.program(arch));
                f.toFile().deleteOnExit();
                sharedFilter = f;
                return f;
            } catch (IOException e) {
                throw new SandboxUnavailableException("cannot write the seccomp filter: " + e.getMessage());
            }
        }
    }
}
