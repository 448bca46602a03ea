package dev.agentswarm.environments.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** agentswarm.mcp: what is read, and every mistake refused with the key that is wrong. */
class McpSettingsTest {

    private static McpSettings parse(String servers) {
        return McpSettings.fromConfig(ConfigFactory.parseString(servers).withFallback(ConfigFactory.load()).resolve());
    }

    private static String refused(String servers) {
        return assertThrows(IllegalArgumentException.class, () -> parse(servers)).getMessage();
    }

    @Test
    void theDefaultsApplyAndEachServerMayOverrideThem() {
        McpSettings s = parse("""
                agentswarm.mcp.defaults.call-timeout = 20s
                agentswarm.mcp.servers {
                  fs { command = ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/data"], env { DEBUG = 1 }, cwd = "/tmp" }
                  web { url = "http://127.0.0.1:3001/mcp", headers { Authorization = "Bearer x" }, prefix = "w_", restart-backoff.max = 2s }
                  nb { command = ["python3", "-m", "nb"], per-episode = true, prefix = "{server}__" }
                }
                """);
        assertEquals(List.of("fs", "nb", "web"), s.servers().stream().map(McpSettings.Server::name).toList());
        McpSettings.Server fs = s.servers().get(0);
        assertTrue(fs.stdio());
        assertEquals(List.of("npx", "-y", "@modelcontextprotocol/server-filesystem", "/data"), fs.command());
        assertEquals(Map.of("DEBUG", "1"), fs.env());
        assertEquals("/tmp", fs.cwd().toString());
        assertEquals("fs.read_file", fs.offeredName("read_file"), "the default prefix is the server's name and a dot");
        assertEquals(Duration.ofSeconds(20), fs.callTimeout());
        assertEquals(Duration.ofSeconds(30), fs.startTimeout());
        assertEquals(Duration.ofMillis(500), fs.backoffMin());
        assertEquals(Duration.ofSeconds(30), fs.backoffMax());
        assertFalse(fs.perEpisode());
        assertEquals(16 * 1024 * 1024, fs.maxMessageChars());
        McpSettings.Server nb = s.servers().get(1);
        assertTrue(nb.perEpisode());
        assertEquals("nb__run", nb.offeredName("run"));
        McpSettings.Server web = s.servers().get(2);
        assertFalse(web.stdio());
        assertEquals(URI.create("http://127.0.0.1:3001/mcp"), web.url());
        assertEquals(Map.of("Authorization", "Bearer x"), web.headers());
        assertEquals("w_echo", web.offeredName("echo"));
        assertEquals(Duration.ofSeconds(2), web.backoffMax());
        assertNull(web.command());
    }

    @Test
    void noServersIsANodeWithoutMcp() {
        assertTrue(parse("").servers().isEmpty());
        assertTrue(McpSettings.fromConfig(ConfigFactory.empty()).servers().isEmpty());
    }

    @Test
    void badConfigurationIsRefusedNamingTheKey() {
        assertEquals("agentswarm.mcp.servers.fs needs command = [\"PROGRAM\", \"ARG\", …] (a server started on stdio) or url ="
                + " \"http://HOST:PORT/mcp\" (Streamable HTTP)", refused("agentswarm.mcp.servers.fs { env { A = b } }"));
        assertTrue(refused("agentswarm.mcp.servers.fs { command = [\"x\"], url = \"http://h/mcp\" }")
                .startsWith("agentswarm.mcp.servers.fs has both command and url"));
        assertTrue(refused("agentswarm.mcp.servers.fs { command = [] }").startsWith("agentswarm.mcp.servers.fs.command is empty"));
        assertTrue(refused("agentswarm.mcp.servers.fs { command = [\"\"] }").startsWith("agentswarm.mcp.servers.fs.command is empty"));
        assertEquals("agentswarm.mcp.servers.fs.command must be a list of strings such as [\"npx\", \"-y\", \"PACKAGE\"], got string"
                + " \"npx -y server\"", refused("agentswarm.mcp.servers.fs { command = \"npx -y server\" }"));
        assertEquals("agentswarm.mcp.servers.web.url must be an http(s) url such as http://127.0.0.1:3001/mcp, got \"ftp://h/mcp\"",
                refused("agentswarm.mcp.servers.web { url = \"ftp://h/mcp\" }"));
        assertTrue(refused("agentswarm.mcp.servers.web { url = \"http://exa mple/mcp\" }").startsWith("agentswarm.mcp.servers.web.url is not a url"));
        assertTrue(refused("agentswarm.mcp.servers.web { url = \"localhost:3001\" }").startsWith("agentswarm.mcp.servers.web.url must be an http(s) url"));
        assertEquals("agentswarm.mcp.servers.fs.comand is unknown (known: allow-tools, call-timeout, command, cwd, deny-tools, env,"
                + " folders, headers, max-message-size, network, per-episode, ping-timeout, prefix, read-only-folders, restart-backoff,"
                + " sandbox, start-timeout, url)",
                refused("agentswarm.mcp.servers.fs { comand = [\"x\"] }"));
        assertEquals("agentswarm.mcp.servers.fs.call-timeout must be a duration such as 30s or 500ms, got \"soon\"",
                refused("agentswarm.mcp.servers.fs { command = [\"x\"], call-timeout = soon }"));
        assertEquals("agentswarm.mcp.servers.fs.per-episode must be true or false, got \"maybe\"",
                refused("agentswarm.mcp.servers.fs { command = [\"x\"], per-episode = maybe }"));
        assertEquals("agentswarm.mcp.servers.fs.env must be a block of NAME = \"value\", got list [\"A=b\"]",
                refused("agentswarm.mcp.servers.fs { command = [\"x\"], env = [\"A=b\"] }"));
        assertTrue(refused("agentswarm.mcp.servers.web { url = \"http://h/mcp\", per-episode = true }")
                .startsWith("agentswarm.mcp.servers.web.per-episode = true needs a command"));
        assertTrue(refused("agentswarm.mcp.servers.web { url = \"http://h/mcp\", env { A = b } }").startsWith("agentswarm.mcp.servers.web.env is for"));
        assertTrue(refused("agentswarm.mcp.servers.fs { command = [\"x\"], restart-backoff { min = 5s, max = 1s } }")
                .startsWith("agentswarm.mcp.servers.fs.restart-backoff: max (1000 ms) is less than min (5000 ms)"));
        assertEquals("agentswarm.mcp.servers.fs.restart-backoff.step is unknown (known: max, min)",
                refused("agentswarm.mcp.servers.fs { command = [\"x\"], restart-backoff.step = 2 }"));
        assertEquals("agentswarm.mcp.servers.fs.start-timeout must be positive, got 0 ms",
                refused("agentswarm.mcp.servers.fs { command = [\"x\"], start-timeout = 0s }"));
        assertTrue(refused("agentswarm.mcp.servers.fs = \"npx server\"").startsWith("agentswarm.mcp.servers.fs must be a block"));
        assertEquals("agentswarm.mcp.server is unknown (known: defaults, servers)", refused("agentswarm.mcp.server.fs { command = [\"x\"] }"));
        assertTrue(refused("agentswarm.mcp.defaults.timeout = 5s").startsWith("agentswarm.mcp.defaults.timeout is unknown"));
        assertTrue(refused("agentswarm.mcp.servers.fs { command = [\"x\"], prefix = \"my fs.\" }")
                .startsWith("agentswarm.mcp.servers.fs.prefix must not contain spaces"));
    }

    @Test
    void aSandboxAndTheToolListsAreReadAndTheirMistakesRefused() {
        McpSettings s = parse("""
                agentswarm.mcp.defaults.sandbox = true
                agentswarm.mcp.servers {
                  fs { command = ["node", "fs.js"], folders = ["/data"], read-only-folders = ["/opt/fs"], cwd = "/data/work",
                       allow-tools = [read_file, list_directory], deny-tools = [write_file] }
                  web { command = ["node", "web.js"], network = true }
                  open { command = ["node", "open.js"], sandbox = false }
                }
                """);
        McpSettings.Server fs = s.servers().get(0);
        assertEquals(new McpSettings.Jail("/usr/bin/bwrap", false, List.of(java.nio.file.Path.of("/data")),
                List.of(java.nio.file.Path.of("/opt/fs"))), fs.jail());
        assertTrue(fs.allows("read_file"));
        assertFalse(fs.allows("write_file"));
        assertFalse(fs.allows("delete_file"));
        assertEquals("it is not in agentswarm.mcp.servers.fs.allow-tools", fs.refusal("delete_file"));
        assertNull(s.servers().get(1).jail(), "sandbox = false overrides the default");
        assertTrue(s.servers().get(1).allows("anything"));
        assertTrue(s.servers().get(2).jail().network());

        assertTrue(refused("agentswarm.mcp.servers.fs { command = [\"x\"], folders = [\"/data\"] }")
                .startsWith("agentswarm.mcp.servers.fs.folders is for a server with sandbox = true"));
        assertTrue(refused("agentswarm.mcp.servers.fs { command = [\"x\"], network = true }")
                .startsWith("agentswarm.mcp.servers.fs.network is for a server with sandbox = true"));
        assertTrue(refused("agentswarm.mcp.servers.web { url = \"http://h/mcp\", sandbox = true }")
                .startsWith("agentswarm.mcp.servers.web.sandbox = true needs a command"));
        for (String bad : List.of("data", "/", "/data/../etc")) {
            assertTrue(refused("agentswarm.mcp.servers.fs { command = [\"x\"], sandbox = true, folders = [\"" + bad + "\"] }")
                    .startsWith("agentswarm.mcp.servers.fs.folders takes absolute folders other than /"), bad);
        }
        assertTrue(refused("agentswarm.mcp.servers.fs { command = [\"x\"], sandbox = true, folders = [\"/data\"], cwd = \"/home\" }")
                .startsWith("agentswarm.mcp.servers.fs.cwd (/home) is not inside folders"));
        assertEquals("agentswarm.mcp.servers.fs: tool 'w' is in both allow-tools and deny-tools",
                refused("agentswarm.mcp.servers.fs { command = [\"x\"], allow-tools = [r, w], deny-tools = [w] }"));
        assertTrue(refused("agentswarm.mcp.servers.fs { command = [\"x\"], deny-tools = w }")
                .startsWith("agentswarm.mcp.servers.fs.deny-tools must be a list of strings"));
    }
}
