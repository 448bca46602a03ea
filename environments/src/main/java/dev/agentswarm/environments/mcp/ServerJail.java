package dev.agentswarm.environments.mcp;

import dev.agentswarm.sandbox.Bubblewrap;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The command line of a stdio MCP server with {@code sandbox = true}: the server's own command under
 * bubblewrap, as the code sandbox runs model code (no nested user namespaces, the seccomp
 * deny-list, no capabilities, the system read-only), seeing only its declared folders, a private
 * {@code /tmp}, and the network only when {@code network = true}. Without a sandbox an MCP server
 * runs as the node's user: every file the node can read (keys, checkpoints, other runs) and every
 * address it can reach are the server's, and a server is third-party code.
 */
final class ServerJail {

    /** What a program needs to start and, with the network, to resolve names and check certificates; each only if it exists. */
    private static final List<String> SYSTEM_FILES = List.of("/etc/alternatives", "/etc/ld.so.cache", "/etc/ssl", "/etc/ca-certificates",
            "/etc/pki", "/etc/localtime", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf");
    private static final List<String> NETWORK_FILES = List.of("/etc/resolv.conf", "/etc/hosts", "/etc/host.conf", "/etc/gai.conf");

    private ServerJail() {}

    /** {@code command} as the jail of {@code server} runs it; {@code env} is the environment it gets (HOME is replaced if outside). */
    static List<String> command(McpSettings.Server server, List<String> command, Map<String, String> env) {
        McpSettings.Jail jail = server.jail();
        Path filter = Bubblewrap.seccompFilter();
        List<String> c = new ArrayList<>(Bubblewrap.common(jail.bwrapPath(), jail.network(), filter != null));
        for (String f : SYSTEM_FILES) c.addAll(List.of("--ro-bind-try", f, f));
        if (jail.network()) for (String f : NETWORK_FILES) c.addAll(List.of("--ro-bind-try", f, f));
        c.addAll(List.of("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"));
        for (Path f : jail.readOnlyFolders()) c.addAll(List.of("--ro-bind", f.toString(), f.toString()));
        for (Path f : jail.folders()) c.addAll(List.of("--bind", f.toString(), f.toString()));
        // The node's HOME is not in the jail: a home that is not bound is the private /tmp, where caches can go.
        String home = env.get("HOME");
        if (home == null || !visible(jail, Path.of(home))) c.addAll(List.of("--setenv", "HOME", "/tmp"));
        if (server.cwd() != null) c.addAll(List.of("--chdir", server.cwd().toAbsolutePath().normalize().toString()));
        c.add("--");
        c.addAll(command);
        return filter == null ? c : Bubblewrap.withSeccompFd(filter, c);
    }

    /** Why the jail cannot start here, saying how to fix it, or null: rather than a server that fails to start for no clear reason. */
    static String missing(McpSettings.Server server) {
        if (Files.isExecutable(Path.of(server.jail().bwrapPath()))) return null;
        return "could not be started: bubblewrap is not installed at " + server.jail().bwrapPath() + " (" + server.key()
                + ".sandbox = true): install it (apt-get install bubblewrap) or set sandbox = false";
    }

    private static boolean visible(McpSettings.Jail jail, Path p) {
        Path n = p.toAbsolutePath().normalize();
        return jail.folders().stream().anyMatch(n::startsWith) || jail.readOnlyFolders().stream().anyMatch(n::startsWith);
    }
}
