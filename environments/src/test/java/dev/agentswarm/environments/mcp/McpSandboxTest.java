package dev.agentswarm.environments.mcp;

import static dev.agentswarm.environments.mcp.McpFixtures.config;
import static dev.agentswarm.environments.mcp.McpFixtures.hocon;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.tool.Tool;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A hostile MCP server (src/test/resources/mcp/hostile_server.py: reads and writes any path,
 * connects anywhere, tries a user namespace, calls every tool read-only) run as the node's user
 * and with {@code sandbox = true}; and the node's own choice of its tools.
 */
class McpSandboxTest {

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    /** The hostile server's script in {@code dir/bin}, and its command. */
    private static List<String> hostile(Path dir) throws Exception {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        try (InputStream in = McpSandboxTest.class.getResourceAsStream("/mcp/hostile_server.py")) {
            Files.copy(in, bin.resolve("hostile_server.py"));
        }
        return List.of("/usr/bin/python3", bin.resolve("hostile_server.py").toString());
    }

    private McpServers start(String servers) {
        return McpServers.start(McpSettings.fromConfig(config(servers)), meters);
    }

    private static Tool tool(McpServers s, String name) {
        return s.tools().stream().filter(t -> t.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError(name + " is not offered; offered: " + s.tools().stream().map(Tool::name).toList()
                        + "; " + s.servers()));
    }

    private static String call(McpServers s, String tool, Map<String, Object> args) {
        return McpServersTest.call(tool(s, tool), Json.write(args));
    }

    @Test
    void aSandboxedServerSeesOnlyItsFoldersAndReachesNoAddress(@TempDir Path tmp) throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/bwrap")), "bubblewrap is not installed");
        Path dir = tmp.toRealPath();
        List<String> command = hostile(dir);
        Path data = Files.createDirectories(dir.resolve("data"));
        Files.writeString(data.resolve("notes.txt"), "milk");
        Path secret = Files.createDirectories(dir.resolve("secret")).resolve("key.txt");
        Files.writeString(secret, "sk-live-123");
        try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            int port = listener.getLocalPort();
            String bin = dir.resolve("bin").toString();
            try (McpServers s = start("open { command = " + hocon(command) + " }\n"
                    + "jailed { command = " + hocon(command) + ", sandbox = true, folders = [\"" + data + "\"],"
                    + " read-only-folders = [\"" + bin + "\"] }\n"
                    + "online { command = " + hocon(command) + ", sandbox = true, network = true, read-only-folders = [\"" + bin + "\"] }")) {
                for (McpServers.ServerStatus st : s.servers()) assertTrue(st.started(), () -> st.name() + ": " + st.error());
                // As the node's user, a server reads the node's secrets and reaches its network: today's default.
                assertEquals("sk-live-123", call(s, "open.read", Map.of("path", secret.toString())));
                assertEquals("connected", call(s, "open.connect", Map.of("host", "127.0.0.1", "port", port)));

                assertEquals("milk", call(s, "jailed.read", Map.of("path", data.resolve("notes.txt").toString())));
                assertEquals("wrote " + data.resolve("out.txt"), call(s, "jailed.write",
                        Map.of("path", data.resolve("out.txt").toString(), "content", "eggs")));
                assertEquals("eggs", Files.readString(data.resolve("out.txt")), "its folder is the host's, read-write");
                String stolen = call(s, "jailed.read", Map.of("path", secret.toString()));
                assertTrue(stolen.startsWith("ERROR: ") && stolen.contains("No such file"), stolen);
                for (String host : List.of("/root/.bashrc", "/etc/shadow", Path.of("pom.xml").toAbsolutePath().toString())) {
                    String r = call(s, "jailed.read", Map.of("path", host));
                    assertTrue(r.startsWith("ERROR: "), host + ": " + r);
                }
                String script = call(s, "jailed.write", Map.of("path", dir.resolve("bin/hostile_server.py").toString(), "content", "x"));
                assertTrue(script.startsWith("ERROR: ") && script.contains("Read-only file system"), script);
                String out = call(s, "jailed.connect", Map.of("host", "127.0.0.1", "port", port));
                assertTrue(out.startsWith("ERROR: "), "no network without network = true: " + out);
                String userns = call(s, "jailed.unshare", Map.of());
                assertTrue(userns.startsWith("ERROR: ") && userns.contains("Operation not permitted"), userns);

                assertEquals("connected", call(s, "online.connect", Map.of("host", "127.0.0.1", "port", port)));
                String online = call(s, "online.read", Map.of("path", secret.toString()));
                assertTrue(online.startsWith("ERROR: "), "the network, not the files: " + online);
            }
        }
    }

    @Test
    void theNodeChoosesWhichToolsItOffersAndWhichItReplays(@TempDir Path tmp) throws Exception {
        List<String> command = hostile(tmp.toRealPath());
        try (McpServers s = start("h { command = " + hocon(command) + ", allow-tools = [read, connect], deny-tools = [write] }")) {
            McpServers.ServerStatus st = s.servers().get(0);
            assertTrue(st.started(), st::error);
            assertEquals(List.of("h.connect", "h.read"), s.tools().stream().map(Tool::name).sorted().toList());
            assertTrue(st.notOffered().contains("write (it is in agentswarm.mcp.servers.h.deny-tools)"), st.notOffered()::toString);
            assertTrue(st.notOffered().contains("unshare (it is not in agentswarm.mcp.servers.h.allow-tools)"), st.notOffered()::toString);
            // Every tool says readOnlyHint (write even says idempotentHint): the server's word replays nothing.
            for (Tool t : s.tools()) assertFalse(t.idempotent(Json.object()), t.name());
        }
    }

    @Test
    void aRealNodeServerWorksInItsSandbox(@TempDir Path tmp) throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/bwrap")), "bubblewrap is not installed");
        Path root = tmp.toRealPath();
        Path fixtures = McpFixtures.dir().toRealPath();
        try (McpServers s = start("fs { command = " + hocon(McpFixtures.filesystem(root)) + ", sandbox = true, folders = [\"" + root
                + "\"], read-only-folders = [\"" + fixtures + "\"] }")) {
            assertTrue(s.servers().get(0).started(), () -> String.valueOf(s.servers().get(0).error()));
            Path file = root.resolve("notes.txt");
            String wrote = call(s, "fs.write_file", Map.of("path", file.toString(), "content", "milk"));
            assertTrue(wrote.contains("Successfully wrote"), wrote);
            assertEquals("milk", Files.readString(file));
            assertEquals("milk", call(s, "fs.read_text_file", Map.of("path", file.toString())));
        }
    }
}
