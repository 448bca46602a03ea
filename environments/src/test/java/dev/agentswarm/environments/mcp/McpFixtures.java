package dev.agentswarm.environments.mcp;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.json.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The real MCP servers the tests run: {@code testkit/ecosystem-fixtures} (server-everything and
 * server-filesystem from npm, installed by bin/test with npm ci; started with node, nothing is
 * downloaded) and its misbehaving-mcp-server.mjs. Missing, a test is skipped on a developer's machine
 * and fails where {@code AGENTSWARM_REQUIRE_ECOSYSTEM_FIXTURES=1} (bin/test sets it).
 */
final class McpFixtures {

    private static Path dir;

    private McpFixtures() {}

    static Path dir() {
        if (dir != null) return dir;
        Path found = null;
        for (Path p = Path.of("").toAbsolutePath(); found == null && p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("testkit/ecosystem-fixtures"))) found = p.resolve("testkit/ecosystem-fixtures");
        }
        if (found == null || !Files.exists(found.resolve("node_modules/.bin/mcp-server-everything"))) {
            String why = "the npm fixtures (run: cd testkit/ecosystem-fixtures && npm ci --ignore-scripts)";
            if ("1".equals(System.getenv("AGENTSWARM_REQUIRE_ECOSYSTEM_FIXTURES"))) fail("MCP servers missing: " + why + " (bin/test installs them)");
            assumeTrue(false, "skipped: " + why + " not installed");
        }
        dir = found;
        return found;
    }

    static List<String> everything(String transport) {
        return List.of("node", dir().resolve("node_modules/.bin/mcp-server-everything").toString(), transport);
    }

    static List<String> filesystem(Path root) {
        return List.of("node", dir().resolve("node_modules/.bin/mcp-server-filesystem").toString(), root.toString());
    }

    static List<String> misbehaving(String mode) {
        return List.of("node", dir().resolve("misbehaving-mcp-server.mjs").toString(), mode);
    }

    /** A command as HOCON. */
    static String hocon(List<String> command) {
        return Json.write(command);
    }

    /** {@code agentswarm.mcp} with these server blocks (HOCON, NAME { … } each), over the module's defaults. */
    static Config config(String servers) {
        return ConfigFactory.parseString("agentswarm.mcp.servers {\n" + servers + "\n}").withFallback(ConfigFactory.load()).resolve();
    }
}
