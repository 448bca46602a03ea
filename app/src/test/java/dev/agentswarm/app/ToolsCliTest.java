package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.testkit.EcosystemFixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code swarm tools} against server-everything, and an episode of {@code swarm run} calling an MCP tool. */
class ToolsCliTest {

    @BeforeEach
    void fixtures() {
        assumeTrue(EcosystemFixtures.available() || EcosystemFixtures.required(), "the MCP servers from npm are not installed (bin/test installs them)");
    }

    private static Path config(Path dir, String servers) throws Exception {
        Path f = dir.resolve("mcp.conf");
        Files.writeString(f, "agentswarm.mcp.servers {\n" + servers + "\n}\n");
        return f;
    }

    @Test
    void listsEveryToolWithItsSourceAndSchema(@TempDir Path dir) throws Exception {
        Path cfg = config(dir, "everything { command = " + EcosystemFixtures.hocon(EcosystemFixtures.everything("stdio")) + " }");
        CliTest.Result r = CliTest.swarm("tools", "--config", cfg.toString(), "--suite", "arithmetic");
        assertEquals(0, r.exit(), r.err());
        String out = r.out();
        assertTrue(out.startsWith("TOOL "), out);
        List<String> rows = out.lines().filter(l -> !l.startsWith(" ")).toList();
        assertTrue(rows.stream().anyMatch(l -> l.matches("calculator\\s+built-in\\s+expression\\*: string")), out);
        assertTrue(rows.stream().anyMatch(l -> l.matches("python\\s+built-in \\(sandbox\\)\\s+code\\*: string")), out);
        assertTrue(rows.stream().anyMatch(l -> l.matches("everything\\.echo\\s+mcp server everything\\s+message\\*: string")), out);
        assertTrue(rows.stream().anyMatch(l -> l.matches("everything\\.get-sum\\s+mcp server everything\\s+a\\*: number, b\\*: number")), out);
        assertTrue(out.contains("    Echoes back the input string"), out);
        assertTrue(out.contains("mcp server everything (node "), out);

        CliTest.Result j = CliTest.swarm("tools", "--config", cfg.toString(), "--suite", "sql", "--json");
        assertEquals(0, j.exit(), j.err());
        JsonNode root = j.json();
        List<String> names = new ArrayList<>();
        JsonNode echo = null;
        for (JsonNode t : root.get("tools")) {
            names.add(t.get("name").asText());
            if (t.get("name").asText().equals("everything.echo")) echo = t;
        }
        assertTrue(names.containsAll(List.of("calculator", "finish", "python", "bash", "everything.echo")), names.toString());
        assertTrue(echo != null);
        assertEquals("mcp", echo.get("source").asText());
        assertEquals("everything", echo.get("server").asText());
        assertFalse(echo.get("idempotent").asBoolean(), "its readOnlyHint is the server's word, not the node's");
        assertEquals("{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\",\"description\":\"Message to echo\"}},"
                + "\"required\":[\"message\"]}", echo.get("parameters").toString());
        JsonNode sqlTool = null;
        for (JsonNode t : root.get("tools")) if (t.get("source").asText().equals("suite")) sqlTool = t;
        assertTrue(sqlTool != null && sqlTool.get("suites").get(0).asText().equals("sql"), root.toString());
        JsonNode server = root.get("mcp_servers").get(0);
        assertTrue(server.get("started").asBoolean());
        assertTrue(server.get("tools").size() >= 12, server.toString());
    }

    @Test
    void aServerThatFailsToStartIsListedWithWhyAndExitsWithOne(@TempDir Path dir) throws Exception {
        Path cfg = config(dir, "good { command = " + EcosystemFixtures.hocon(EcosystemFixtures.misbehaving("well")) + " }\n"
                + "broken { command = " + EcosystemFixtures.hocon(EcosystemFixtures.misbehaving("garbage-start")) + " }");
        CliTest.Result r = CliTest.swarm("tools", "--config", cfg.toString(), "--suite", "arithmetic");
        assertEquals(1, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("good.echo "), r.out());
        assertFalse(r.out().contains("broken.echo"), r.out());
        assertTrue(r.out().contains("mcp server broken (node ") && r.out().contains("FAILED to start: MCP server 'broken' wrote to stdout"
                + " what is not a JSON-RPC message"), r.out());
    }

    @Test
    void badConfigurationIsOneLineNamingTheKey(@TempDir Path dir) throws Exception {
        CliTest.Result r = CliTest.swarm("tools", "--config", config(dir, "fs { command = [] }").toString());
        assertEquals(2, r.exit());
        assertTrue(r.err().startsWith("error: agentswarm.mcp.servers.fs.command is empty"), r.err());
        CliTest.Result clash = CliTest.swarm("tools", "--suite", "arithmetic", "--config", config(dir, "calc { command = "
                + EcosystemFixtures.hocon(EcosystemFixtures.misbehaving("well")) + ", prefix = \"\" }\n"
                + "calc2 { command = " + EcosystemFixtures.hocon(EcosystemFixtures.misbehaving("well")) + ", prefix = \"\" }").toString());
        assertEquals(2, clash.exit());
        assertTrue(clash.err().startsWith("error: MCP servers agentswarm.mcp.servers.calc and agentswarm.mcp.servers.calc2 both offer"
                + " a tool named 'echo'"), clash.err());
    }

    @Test
    void anEpisodeOfSwarmRunCallsAnMcpTool(@TempDir Path dir) throws Exception {
        Path cfg = config(dir, "everything { command = " + EcosystemFixtures.hocon(EcosystemFixtures.everything("stdio")) + " }");
        Path script = dir.resolve("script.txt");
        Files.writeString(script, """
                <tool_call>
                {"name": "everything.get-sum", "arguments": {"a": 20, "b": 22}}
                </tool_call>
                ---
                The sum is 42
                """);
        CliTest.Result run = CliTest.swarm("run", "--single", "What is 20 + 22?", "--script", script.toString(),
                "--tools", "everything.get-sum,finish", "--config", cfg.toString(), "--json");
        assertEquals(0, run.exit(), run.err());
        JsonNode j = run.json();
        assertEquals("The sum is 42", j.get("final_answer").asText());
        assertEquals(1, j.get("tool_successes").asInt());
        assertTrue(run.out().contains("The sum of 20 and 22 is 42."), run.out());
    }

    @Test
    void mcpBenchmarkChecksEveryAnswerAndReportsBothPaths() throws Exception {
        CliTest.Result b = CliTest.swarm("bench", "mcp", "--calls", "200", "--rounds", "2", "--concurrency", "4", "--json");
        assertEquals(0, b.exit(), b.err());
        JsonNode j = b.json();
        assertEquals(200, j.get("calls_per_kind").asInt());
        for (String k : List.of("sequential_agentswarm_p50_us", "sequential_sdk_p50_us", "concurrent_agentswarm_calls_per_s",
                "concurrent_sdk_calls_per_s")) {
            assertTrue(j.get(k).asDouble() > 0, k);
        }
        assertTrue(j.has("sequential_overhead_us") && j.has("sequential_ratio"), j.toString());
        assertEquals(2, CliTest.swarm("bench", "mcp", "--calls", "1", "--rounds", "2").exit(), "bad arguments are usage errors");
    }
}
