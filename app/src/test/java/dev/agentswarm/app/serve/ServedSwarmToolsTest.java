package dev.agentswarm.app.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.app.SwarmNode;
import dev.agentswarm.core.tool.ToolRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tools of a served swarm's agents come from {@code agentswarm.serve.swarm.tools}; settings for the
 * node's other tools ({@code agentswarm.tools}) do not stop the server, and an MCP server none of whose
 * tools is granted is never started. The servers here only leave a mark that they were started.
 */
class ServedSwarmToolsTest {

    @TempDir
    Path dir;

    /** Two MCP servers, fs and db, that each touch a file of their name when started (and then exit). */
    private Config node(String settings) {
        return ConfigFactory.parseString(settings + "\n"
                + "agentswarm.mcp.defaults.start-timeout = 5 s\n"
                + "agentswarm.mcp.servers.fs.command = [sh, -c, \"touch '" + dir.resolve("fs-started") + "'\"]\n"
                + "agentswarm.mcp.servers.db.command = [sh, -c, \"touch '" + dir.resolve("db-started") + "'\"]\n")
                .withFallback(SwarmNode.loadConfig(null));
    }

    private Set<String> started() {
        Set<String> s = new TreeSet<>();
        for (String server : List.of("fs", "db")) if (Files.exists(dir.resolve(server + "-started"))) s.add(server);
        return s;
    }

    private static Set<String> names(ToolRegistry tools) {
        return new TreeSet<>(tools.names());
    }

    @Test
    void anMcpToolsIdempotencyDoesNotStopTheServerAndStartsNothing() {
        Config c = node("agentswarm.tools.\"fs.read_text_file\".idempotent = true\n"
                + "agentswarm.tools.calculator.idempotent = false");
        ToolRegistry tools = ServingNode.swarmTools(c);
        assertEquals(Set.of("calculator", "finish"), names(tools));
        assertFalse(tools.find("calculator").orElseThrow().idempotent(JsonNodeFactory.instance.objectNode()),
                "the setting of a tool the swarm has still applies");
        assertEquals(Set.of(), started());
    }

    @Test
    void grantingTheSandboxStartsNoMcpServer() {
        ToolRegistry tools = ServingNode.swarmTools(node("agentswarm.serve.swarm.tools = [python]"));
        assertEquals(Set.of("calculator", "finish", "python"), names(tools));
        assertEquals(Set.of(), started());
    }

    @Test
    void grantingAnMcpToolStartsItsServerOnly() {
        // fs starts (and, being no real server, offers nothing: the grant is then refused); db never starts.
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ServingNode.swarmTools(node("agentswarm.serve.swarm.tools = [\"fs.read_text_file\"]")));
        assertTrue(e.getMessage().startsWith("agentswarm.serve.swarm.tools: ") && e.getMessage().contains("fs.read_text_file"), e.getMessage());
        assertEquals(Set.of("fs"), started());
    }

    @Test
    void aSettingForNoToolTheNodeCouldOfferIsStillRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ServingNode.swarmTools(node("agentswarm.tools.calculater.idempotent = true")));
        assertTrue(e.getMessage().contains("agentswarm.tools.calculater"), e.getMessage());
        assertEquals(Set.of(), started());
    }
}
