package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code swarm sandbox run}: what the program did, its status as the exit code, the limit that stopped it. */
class SandboxCliTest {

    @Test
    void printsOutputErrorsAndExitStatus(@TempDir Path dir) throws Exception {
        Path program = dir.resolve("p.py");
        Files.writeString(program, "import sys\nprint(6 * 7)\nprint('warned', file=sys.stderr)\nsys.exit(3)\n");
        CliTest.Result r = CliTest.swarm("sandbox", "run", program.toString(), "--json");
        assertEquals(3, r.exit(), r.err());
        assertTrue(r.out().startsWith("42\n--- stderr ---\nwarned\n--- exit status 3"), r.out());
        JsonNode j = r.json();
        assertEquals("python", j.get("language").asText());
        assertEquals("42\n", j.get("stdout").asText());
        assertEquals("warned\n", j.get("stderr").asText());
        assertEquals("none", j.get("limit").asText());
    }

    @Test
    void timeoutStopsTheProgramAndKeepsWhatItPrinted(@TempDir Path dir) throws Exception {
        Path program = dir.resolve("loop.sh");
        Files.writeString(program, "echo started; while true; do :; done\n");
        long t0 = System.nanoTime();
        CliTest.Result r = CliTest.swarm("sandbox", "run", program.toString(), "--timeout", "0.5", "--json");
        assertTrue((System.nanoTime() - t0) / 1e9 < 5, "the timeout, not sandbox.wall-timeout, stopped it");
        assertEquals(124, r.exit(), r.err());
        JsonNode j = r.json();
        assertEquals("bash", j.get("language").asText());
        assertEquals("wall_time", j.get("limit").asText());
        assertEquals("started\n", j.get("stdout").asText());
        assertTrue(r.out().contains("stopped by the wall-clock time limit"), r.out());
    }

    @Test
    void badArgumentsGetOneClearLine(@TempDir Path dir) throws Exception {
        Path program = dir.resolve("p.py");
        Files.writeString(program, "print(1)\n");
        CliTest.Result lang = CliTest.swarm("sandbox", "run", program.toString(), "--lang", "ruby");
        assertEquals(2, lang.exit());
        assertTrue(lang.err().contains("unknown language \"ruby\""), lang.err());
        CliTest.Result timeout = CliTest.swarm("sandbox", "run", program.toString(), "--timeout", "-1");
        assertEquals(2, timeout.exit());
        assertTrue(timeout.err().contains("--timeout takes seconds"), timeout.err());
        CliTest.Result missing = CliTest.swarm("sandbox", "run", dir.resolve("nope.py").toString());
        assertEquals(2, missing.exit());
        assertTrue(missing.err().contains("is not a file"), missing.err());
        assertFalse(missing.out().contains("exit status"));
    }
}
