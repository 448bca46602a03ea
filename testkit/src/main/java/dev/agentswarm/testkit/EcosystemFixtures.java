package dev.agentswarm.testkit;

import dev.agentswarm.core.json.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Real programs nobody here wrote, for the ecosystem tests: {@code testkit/ecosystem-fixtures}
 * (the reference MCP servers from npm — server-everything, server-filesystem — installed by bin/test
 * with {@code npm ci} and started with node, so nothing is downloaded; and misbehaving-mcp-server.mjs,
 * a small server that crashes, hangs or writes garbage on request). A test checks {@code
 * assumeTrue(available() || required())}: skipped on a developer's machine without them, it fails
 * where {@code AGENTSWARM_REQUIRE_ECOSYSTEM_FIXTURES=1} (bin/test sets it and installs them).
 */
public final class EcosystemFixtures {

    private static Path dir;

    private EcosystemFixtures() {}

    public static final String REQUIRE_ENV = "AGENTSWARM_REQUIRE_ECOSYSTEM_FIXTURES";

    /** Whether the fixtures are installed (npm ci) and node runs. */
    public static boolean available() {
        return find() != null;
    }

    /** Whether missing fixtures must fail the test run rather than skip the tests that need them. */
    public static boolean required() {
        return "1".equals(System.getenv(REQUIRE_ENV));
    }

    /** The fixture folder, with its node_modules installed. */
    public static Path dir() {
        Path d = find();
        if (d == null) {
            throw new IllegalStateException("ecosystem fixtures missing: run cd testkit/ecosystem-fixtures && npm ci --ignore-scripts"
                    + " (bin/test does)");
        }
        return d;
    }

    private static synchronized Path find() {
        if (dir != null) return dir;
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            Path d = p.resolve("testkit/ecosystem-fixtures");
            if (Files.exists(d.resolve("node_modules/.bin/mcp-server-everything"))) {
                dir = d;
                return d;
            }
        }
        return null;
    }

    /** server-everything on stdio (or "streamableHttp", with PORT in its environment). */
    public static List<String> everything(String transport) {
        return List.of("node", dir().resolve("node_modules/.bin/mcp-server-everything").toString(), transport);
    }

    /** server-filesystem, allowed to read and write under {@code root}. */
    public static List<String> filesystem(Path root) {
        return List.of("node", dir().resolve("node_modules/.bin/mcp-server-filesystem").toString(), root.toString());
    }

    /** misbehaving-mcp-server.mjs in {@code mode}: well, garbage-start, garbage-call, hang-call, silent, exit-call. */
    public static List<String> misbehaving(String mode) {
        return List.of("node", dir().resolve("misbehaving-mcp-server.mjs").toString(), mode);
    }

    /** A command as a HOCON list. */
    public static String hocon(List<String> command) {
        return Json.write(command);
    }
}
