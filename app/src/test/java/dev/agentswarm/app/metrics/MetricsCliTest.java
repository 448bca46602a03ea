package dev.agentswarm.app.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.app.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** --metrics-port on the command line: the endpoint's address printed, a bad port refused with the option and the key. */
class MetricsCliTest {

    private record Result(int exit, String out, String err) {}

    private static Result swarm(String... args) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        StringWriter cliErr = new StringWriter();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            CommandLine cl = Main.commandLine();
            cl.setErr(new PrintWriter(cliErr, true));
            int exit = cl.execute(args);
            return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8) + cliErr);
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
    }

    @Test
    void aRunWithAMetricsPortServesAndSaysWhere(@TempDir Path dir) throws Exception {
        Path script = dir.resolve("s.json");
        Files.writeString(script, "{\"replies\": [\"4\"]}");
        Result run = swarm("run", "--single", "2+2?", "--script", script.toString(), "--metrics-port", "0");
        assertEquals(0, run.exit(), run.out() + run.err());
        assertTrue(run.err().matches("(?s).*node endpoints: http://127\\.0\\.0\\.1:\\d+/metrics, .*/alive, .*/ready.*"), run.err());
    }

    @Test
    void aBadMetricsPortIsRefusedBeforeAnythingStarts(@TempDir Path dir) throws Exception {
        Path script = dir.resolve("s.json");
        Files.writeString(script, "{\"replies\": [\"4\"]}");
        Result run = swarm("run", "--single", "2+2?", "--script", script.toString(), "--metrics-port", "70000");
        assertEquals(2, run.exit(), run.out() + run.err());
        assertTrue(run.err().contains("--metrics-port 70000") && run.err().contains("agentswarm.http.port"), run.err());
    }
}
