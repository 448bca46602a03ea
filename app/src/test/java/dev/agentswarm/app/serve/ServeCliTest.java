package dev.agentswarm.app.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.app.Main;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code swarm serve} as a process: --port 0 prints the URL it took, SIGTERM stops it cleanly, bad options are refused. */
class ServeCliTest {

    private static final Pattern URL = Pattern.compile("serving (.+) at (http://127\\.0\\.0\\.1:(\\d+)/v1)");

    @Test
    void servesOnAFreePortAndStopsOnSigterm() throws Exception {
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx1g",
                "-Dai.djl.offline=true", "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "serve", "--port", "0", "--preset", "tiny", "--served-model-name", "tiny-test");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        StringBuilder output = new StringBuilder();
        try {
            CompletableFuture<Matcher> announced = new CompletableFuture<>();
            Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line; (line = r.readLine()) != null; ) {
                        synchronized (output) {
                            output.append(line).append('\n');
                        }
                        Matcher m = URL.matcher(line);
                        if (m.find()) announced.complete(m);
                    }
                } catch (java.io.IOException e) {
                    // the process is gone
                }
                announced.completeExceptionally(new AssertionError("swarm serve exited without announcing its URL"));
            });
            reader.setDaemon(true);
            reader.start();
            Matcher m = announced.get(120, TimeUnit.SECONDS);
            assertEquals("tiny-test", m.group(1));
            String base = m.group(2);
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> models = http.send(HttpRequest.newBuilder(URI.create(base + "/models")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, models.statusCode());
            assertTrue(models.body().contains("\"tiny-test\""), models.body());
            HttpResponse<String> chat = http.send(HttpRequest.newBuilder(URI.create(base + "/chat/completions"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"model\": \"tiny-test\", \"messages\": [{\"role\": \"user\","
                            + " \"content\": \"hi\"}], \"max_tokens\": 4}")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, chat.statusCode(), chat.body());
            assertTrue(chat.body().contains("\"completion_tokens\":"), chat.body());

            p.destroy(); // SIGTERM: the node's coordinated shutdown unbinds and stops
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "swarm serve did not stop on SIGTERM:\n" + output);
            assertNotEquals(137, p.exitValue());
            int port = Integer.parseInt(m.group(3));
            assertThrows(ConnectException.class, () -> http.send(HttpRequest.newBuilder(URI.create(base + "/models")).build(),
                    HttpResponse.BodyHandlers.ofString()), "port " + port + " is closed");
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly();
                p.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    private static String[] refused(String... args) {
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setErr(new PrintWriter(err, true));
        int exit = cl.execute(args);
        return new String[] {String.valueOf(exit), err.toString()};
    }

    @Test
    void badOptionsAreRefusedNamingThem() {
        String[] port = refused("serve", "--port", "70000");
        assertNotEquals("0", port[0]);
        assertTrue(port[1].contains("--port must be in 0..65535"), port[1]);
        String[] name = refused("serve", "--served-model-name", "swarm");
        assertTrue(name[1].contains("--served-model-name"), name[1]);
        String[] preset = refused("serve", "--preset", "small", "--model", "some/dir");
        assertTrue(preset[1].contains("--preset"), preset[1]);
        String[] queued = refused("serve", "--max-queued", "-1");
        assertTrue(queued[1].contains("--max-queued must be >= 0"), queued[1]);
        String[] notANumber = refused("serve", "--port", "eighty");
        assertNotNull(notANumber[1]);
        assertTrue(notANumber[1].contains("--port"), notANumber[1]);
    }

    @Test
    void theServedModelIsNamedAfterItsFolderWeightsOrPreset() {
        com.typesafe.config.Config base = dev.agentswarm.app.SwarmNode.loadConfig(null);
        assertEquals("small", dev.agentswarm.app.cli.ServeCommandAccess.modelId(base));
        assertEquals("Qwen3-0.6B", dev.agentswarm.app.cli.ServeCommandAccess.modelId(base.withValue(
                "agentswarm.policy.embedded.model-dir", com.typesafe.config.ConfigValueFactory.fromAnyRef("models/Qwen3-0.6B/"))));
        assertEquals("sft-step-40", dev.agentswarm.app.cli.ServeCommandAccess.modelId(base.withValue(
                "agentswarm.policy.embedded.weights", com.typesafe.config.ConfigValueFactory.fromAnyRef("runs/x/sft-step-40.safetensors"))));
    }
}
