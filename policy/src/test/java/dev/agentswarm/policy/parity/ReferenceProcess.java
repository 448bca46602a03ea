package dev.agentswarm.policy.parity;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A reference implementation in another process that answers one JSON line per request line
 * (testkit/hf-fixtures/reference.mjs or jinja_reference.py). Requests go in batches: all are
 * written by a second thread while answers are read, so thousands of cases cost one round trip.
 */
public final class ReferenceProcess implements AutoCloseable {

    private final Process process;
    private final BufferedWriter in;
    private final BufferedReader out;

    public ReferenceProcess(Path workDir, String... command) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command).directory(workDir.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT);
        pb.environment().put("PYTHONIOENCODING", "utf-8");
        process = pb.start();
        in = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
        out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    public static ReferenceProcess node() throws IOException {
        HfFixtures.requireNode();
        return new ReferenceProcess(HfFixtures.dir(), "node", "reference.mjs");
    }

    public static ReferenceProcess pythonJinja() throws IOException {
        HfFixtures.requirePythonJinja();
        return new ReferenceProcess(HfFixtures.dir(), HfFixtures.PYTHON, "jinja_reference.py");
    }

    /** Sends every request and returns the answers in order. */
    public List<JsonNode> ask(List<? extends JsonNode> requests) throws Exception {
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            try {
                for (JsonNode r : requests) {
                    in.write(Json.MAPPER.writeValueAsString(r));
                    in.write('\n');
                }
                in.flush();
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        List<JsonNode> answers = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            String line = out.readLine();
            if (line == null) throw new IOException("reference process ended after " + i + " answers");
            answers.add(Json.MAPPER.readTree(line));
        }
        writer.get(60, TimeUnit.SECONDS);
        return answers;
    }

    @Override
    public void close() throws Exception {
        in.close();
        if (!process.waitFor(10, TimeUnit.SECONDS)) process.destroyForcibly();
    }
}
