package dev.agentswarm.environments.mcp;

import static dev.agentswarm.environments.mcp.McpFixtures.config;
import static dev.agentswarm.environments.mcp.McpFixtures.hocon;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.core.tool.JsonSchemaValidator;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.ToolStatus;
import dev.agentswarm.core.tool.ToolContext;
import dev.agentswarm.core.tool.ToolExecutor;
import dev.agentswarm.core.tool.ToolRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** MCP servers from npm and a misbehaving one, started for real: tools listed and called, failures contained. */
class McpServersTest {

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    private McpServers start(String servers) {
        return McpServers.start(McpSettings.fromConfig(config(servers)), meters);
    }

    private static Tool tool(McpServers s, String name) {
        return s.tools().stream().filter(t -> t.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no tool " + name + " in " + s.tools().stream().map(Tool::name).toList()));
    }

    /** The text of a call, or "STATUS: message" when it failed (SERVER_DOWN when its server is down, else ERROR). */
    static String call(Tool t, String argsJson) {
        return call(t, argsJson, "ep-1", 30_000);
    }

    /**
     * Runs a call as an episode does, through the tool executor (its validation, its time limit):
     * the text, or "STATUS: text" when it did not succeed.
     */
    static String call(Tool t, String argsJson, String episode, long timeoutMillis) {
        try {
            ToolExecutor executor = new ToolExecutor(ToolRegistry.of(t), 100_000, timeoutMillis);
            ToolResult r = executor.execute(new ToolCall("c1", t.name(), Json.parse(argsJson)), new ToolContext(episode, 1, 0, "c1", timeoutMillis))
                    .toCompletableFuture().get(timeoutMillis + 20_000, TimeUnit.MILLISECONDS);
            return r.status() == ToolStatus.OK ? r.content() : r.status() + ": " + r.content();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static void await(BooleanSupplier condition, Duration limit, String what) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) fail("waited " + limit.toMillis() + " ms for " + what);
            Thread.sleep(20);
        }
    }

    /**
     * Whether a process has ended: gone, or a zombie waiting to be reaped (an orphan's new parent, PID 1
     * of a container, may take its time).
     */
    static boolean gone(ProcessHandle p) {
        if (!p.isAlive()) return true;
        try {
            String stat = Files.readString(Path.of("/proc/" + p.pid() + "/stat"));
            return stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
        } catch (java.io.IOException e) {
            return true;
        }
    }

    private double counter(String name, String... tags) {
        var c = meters.find(name).tags(tags).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void serverEverythingsToolsAreOfferedWithTheirSchemasAndAnswer() {
        try (McpServers s = start("everything { command = " + hocon(McpFixtures.everything("stdio")) + " }")) {
            McpServers.ServerStatus status = s.servers().get(0);
            assertTrue(status.started(), () -> "started: " + status.error());
            List<String> names = s.tools().stream().map(Tool::name).toList();
            assertTrue(names.containsAll(List.of("everything.echo", "everything.get-sum", "everything.get-structured-content",
                    "everything.get-tiny-image", "everything.trigger-long-running-operation")), names::toString);
            ToolSpec echo = tool(s, "everything.echo").spec();
            assertEquals("Echoes back the input string", echo.description());
            assertFalse(echo.parameters().has("$schema"), "$schema is a note on the dialect, left out of the parameters");
            assertEquals("string", echo.parameters().at("/properties/message/type").asText());
            assertEquals(java.util.Optional.of("everything"), s.serverOf("everything.echo"));
            // A tool that only runs as an MCP task (execution.taskSupport = required) would refuse every plain call: not offered.
            assertFalse(names.contains("everything.simulate-research-query"), names::toString);
            assertTrue(status.notOffered().stream().anyMatch(n -> n.startsWith("simulate-research-query (it only runs as an MCP task")),
                    status.notOffered()::toString);

            assertEquals("Echo: hello", call(tool(s, "everything.echo"), "{\"message\": \"hello\"}"));
            assertEquals("The sum of 2 and 3 is 5.", call(tool(s, "everything.get-sum"), "{\"a\": 2, \"b\": 3}"));
            // Structured content as compact JSON, once (the server repeats it in a text block for older clients).
            String weather = call(tool(s, "everything.get-structured-content"), "{\"location\": \"Chicago\"}");
            assertEquals("{\"temperature\":36,\"conditions\":\"Light rain / drizzle\",\"humidity\":82}", weather);
            // An image is one line naming it, not its base64.
            String image = call(tool(s, "everything.get-tiny-image"), "{}");
            assertTrue(image.contains("[image: image/png, "), image);
            assertTrue(image.length() < 400, "no base64 in the observation: " + image);
            // readOnlyHint / idempotentHint are the server's untrusted word: echo says readOnlyHint, and is not replayed for it.
            assertFalse(tool(s, "everything.echo").idempotent(Json.object()));
            assertFalse(tool(s, "everything.toggle-simulated-logging").idempotent(Json.object()));
            assertEquals(1.0, counter(McpMetrics.CALLS, "server", "everything", "tool", "echo", "outcome", "ok"));
            assertEquals(4, meters.find(McpMetrics.DURATION).tag("server", "everything").timer().count());
        }
    }

    @Test
    void serverFilesystemWritesAndReadsAFileAndRefusesPathsOutsideItsFolder(@TempDir Path dir) throws Exception {
        Path root = dir.toRealPath();
        try (McpServers s = start("fs { command = " + hocon(McpFixtures.filesystem(root)) + ", prefix = \"fs_\" }")) {
            assertTrue(s.servers().get(0).started(), () -> String.valueOf(s.servers().get(0).error()));
            Path file = root.resolve("notes.txt");
            String wrote = call(tool(s, "fs_write_file"), Json.write(Map.of("path", file.toString(), "content", "first line\nsecond")));
            assertTrue(wrote.contains("Successfully wrote"), wrote);
            assertEquals("first line\nsecond", Files.readString(file));
            assertEquals("first line\nsecond", call(tool(s, "fs_read_text_file"), Json.write(Map.of("path", file.toString()))));
            // isError: the server's text, as a failed call.
            String outside = call(tool(s, "fs_read_text_file"), "{\"path\": \"/etc/hostname\"}");
            assertTrue(outside.startsWith("ERROR: ") && outside.contains("Access denied"), outside);
            assertEquals(1.0, counter(McpMetrics.CALLS, "server", "fs", "tool", "read_text_file", "outcome", "tool_error"));
            // write_file says idempotentHint, edit_file says neither: neither is re-run after a crash unless the node's
            // configuration says so (agentswarm.tools."fs_write_file".idempotent = true).
            assertFalse(tool(s, "fs_write_file").idempotent(Json.object()));
            assertFalse(tool(s, "fs_edit_file").idempotent(Json.object()));
            ToolRegistry configured = ToolRegistry.of(s.tools()).withIdempotency(
                    com.typesafe.config.ConfigFactory.parseString("\"fs_write_file\".idempotent = true"));
            assertTrue(configured.find("fs_write_file").orElseThrow().idempotent(Json.object()));
        }
    }

    @Test
    void realServersSchemasLoadIntoTheValidatorAndCheckArguments(@TempDir Path dir) throws Exception {
        try (McpServers s = start("everything { command = " + hocon(McpFixtures.everything("stdio")) + " }\n"
                + "fs { command = " + hocon(McpFixtures.filesystem(dir.toRealPath())) + " }")) {
            assertTrue(s.tools().size() > 20, "both servers' tools: " + s.tools().size());
            for (Tool t : s.tools()) {
                JsonNode p = t.spec().parameters();
                assertEquals("object", p.path("type").asText(), t.name());
                // An empty object passes unless the schema requires fields; the validator never throws on these schemas.
                List<String> v = JsonSchemaValidator.validate(p, Json.object(), "arguments");
                assertEquals(p.has("required") && p.get("required").size() > 0, !v.isEmpty(), t.name() + ": " + v);
            }
            JsonNode sum = tool(s, "everything.get-sum").spec().parameters();
            assertEquals(List.of("arguments.a: expected number, got string \"2\""),
                    JsonSchemaValidator.validate(sum, Json.parse("{\"a\": \"2\", \"b\": 3}"), "arguments"));
            JsonNode weather = tool(s, "everything.get-structured-content").spec().parameters();
            assertEquals(1, JsonSchemaValidator.validate(weather, Json.parse("{\"location\": \"Paris\"}"), "arguments").size());
            // minItems of read_multiple_files is checked; "format": "uri" (gzip-file-as-resource) is not a keyword we check: the server does.
            JsonNode many = tool(s, "fs.read_multiple_files").spec().parameters();
            assertEquals(List.of("arguments.paths: expected at least 1 items, got 0"),
                    JsonSchemaValidator.validate(many, Json.parse("{\"paths\": []}"), "arguments"));
            JsonNode gzip = tool(s, "everything.gzip-file-as-resource").spec().parameters();
            assertEquals("uri", gzip.at("/properties/data/format").asText());
            assertEquals(List.of(), JsonSchemaValidator.validate(gzip, Json.parse("{\"data\": \"not a uri\"}"), "arguments"));
        }
    }

    @Test
    void aServerKilledMidCallFailsThatCallAndIsRestartedWithItsToolsListedAgain() throws Exception {
        try (McpServers s = start("everything { command = " + hocon(McpFixtures.everything("stdio"))
                + ", restart-backoff { min = 800ms, max = 5s } }")) {
            Tool slow = tool(s, "everything.trigger-long-running-operation");
            Tool echo = tool(s, "everything.echo");
            ProcessHandle first = s.process("everything");
            assertNotNull(first);
            var pending = slow.invoke(Json.parse("{\"duration\": 20, \"steps\": 2}"), new ToolContext("ep", 1, 0, "c", 30_000))
                    .toCompletableFuture();
            Thread.sleep(300);
            long killedAt = System.nanoTime();
            first.descendants().forEach(ProcessHandle::destroyForcibly);
            first.destroyForcibly();
            try {
                pending.get(10, TimeUnit.SECONDS);
                fail("the call should fail");
            } catch (ExecutionException e) {
                String m = e.getCause().getMessage();
                assertTrue(m.startsWith("MCP server 'everything' exited (killed by SIGKILL") && m.contains("during the call"), m);
                assertTrue(m.contains("started again in 800 ms"), m);
            }
            assertTrue(System.nanoTime() - killedAt < TimeUnit.SECONDS.toNanos(3), "the crash is reported at once, not at the call's timeout");
            // During the backoff calls fail at once, saying when the next attempt is.
            String during = call(echo, "{\"message\": \"x\"}");
            assertTrue(during.startsWith("SERVER_DOWN: MCP server 'everything' is restarting after it exited") && during.contains("next attempt in"),
                    during);
            await(() -> s.process("everything") != null, Duration.ofSeconds(20), "the restart");
            assertNotEquals(first.pid(), s.process("everything").pid());
            assertEquals("Echo: back", call(echo, "{\"message\": \"back\"}"));
            assertEquals(1.0, counter(McpMetrics.RESTARTS, "server", "everything"));
            assertEquals(1.0, counter(McpMetrics.CALLS, "server", "everything", "tool", "trigger-long-running-operation", "outcome", "failed"));
            assertTrue(first.descendants().allMatch(McpServersTest::gone));
        }
    }

    @Test
    void aServerThatExitsOnACallSaysWithWhichCodeAndWhatItWroteToStderr() {
        try (McpServers s = start("bad { command = " + hocon(McpFixtures.misbehaving("exit-call")) + ", restart-backoff.min = 5s }")) {
            String r = call(tool(s, "bad.echo"), "{\"text\": \"hi\"}");
            assertTrue(r.startsWith("SERVER_DOWN: MCP server 'bad' exited with code 3 during the call"), r);
            assertTrue(r.contains("boom: cannot handle echo"), "its last stderr lines say why: " + r);
        }
    }

    @Test
    void aServerThatWritesGarbageOnACallFailsItClearlyAndIsRestarted() throws Exception {
        try (McpServers s = start("bad { command = " + hocon(McpFixtures.misbehaving("garbage-call")) + ", restart-backoff.min = 100ms }")) {
            ProcessHandle first = s.process("bad");
            String r = call(tool(s, "bad.echo"), "{\"text\": \"hi\"}");
            assertTrue(r.startsWith("SERVER_DOWN: MCP server 'bad' wrote to stdout what is not a JSON-RPC message: \"<html>502 Bad Gateway</html>\""),
                    r);
            await(() -> s.process("bad") != null && s.process("bad").pid() != first.pid(), Duration.ofSeconds(20), "the restart");
            await(() -> gone(first), Duration.ofSeconds(5), "the garbage writer to be killed");
        }
    }

    @Test
    void aServerThatWritesGarbageAtStartOrNeverAnswersFailsToStartAndOffersNothing() {
        long t0 = System.nanoTime();
        try (McpServers s = start("garbage { command = " + hocon(McpFixtures.misbehaving("garbage-start")) + " }\n"
                + "silent { command = " + hocon(McpFixtures.misbehaving("silent")) + ", start-timeout = 1500ms }\n"
                + "missing { command = [\"/nonexistent/mcp-server\"] }\n"
                + "good { command = " + hocon(McpFixtures.misbehaving("well")) + " }")) {
            Map<String, McpServers.ServerStatus> byName = new java.util.HashMap<>();
            for (var st : s.servers()) byName.put(st.name(), st);
            assertTrue(byName.get("good").started());
            assertEquals(List.of("good.echo", "good.increment", "good.pid", "good.wait", "good.change"), s.tools().stream().map(Tool::name).toList());
            assertFalse(byName.get("garbage").started());
            assertTrue(byName.get("garbage").error().contains("wrote to stdout what is not a JSON-RPC message: \"Server starting..."),
                    byName.get("garbage").error());
            assertTrue(byName.get("silent").error().contains("did not finish starting within 1.5 s"), byName.get("silent").error());
            assertTrue(byName.get("missing").error().contains("could not be started (/nonexistent/mcp-server)"), byName.get("missing").error());
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(15), "the node waits at most a server's start-timeout");
            assertNull(s.process("silent"), "a server that failed to start is stopped");
        }
    }

    @Test
    void aCallWithoutAnAnswerTimesOutAndAServerThatAnswersNoPingIsRestarted() throws Exception {
        try (McpServers s = start("hang { command = " + hocon(McpFixtures.misbehaving("hang-call"))
                + ", call-timeout = 700ms, ping-timeout = 300ms, restart-backoff.min = 100ms }")) {
            ProcessHandle first = s.process("hang");
            long t0 = System.nanoTime();
            String r = call(tool(s, "hang.echo"), "{\"text\": \"hi\"}");
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertEquals("ERROR: MCP server 'hang' did not answer tools/call 'echo' within 700 ms", r);
            assertTrue(took >= 650 && took < 3000, "took " + took + " ms");
            // The episode's own tool timeout wins when it is shorter.
            await(() -> s.process("hang") != null && s.process("hang").pid() != first.pid(), Duration.ofSeconds(20), "the hung server's restart");
            assertEquals("TIMEOUT: tool 'hang.echo' timed out after 200 ms", call(tool(s, "hang.echo"), "{\"text\": \"hi\"}", "ep", 200));
            assertTrue(counter(McpMetrics.RESTARTS, "server", "hang") >= 1);
            assertEquals(2.0, counter(McpMetrics.CALLS, "server", "hang", "tool", "echo", "outcome", "timeout"));
        }
    }

    @Test
    void aSlowCallTimesOutWithoutARestartWhenTheServerStillAnswersPings() throws Exception {
        try (McpServers s = start("well { command = " + hocon(McpFixtures.misbehaving("well")) + ", call-timeout = 300ms }")) {
            ProcessHandle first = s.process("well");
            assertEquals("ERROR: MCP server 'well' did not answer tools/call 'wait' within 300 ms", call(tool(s, "well.wait"), "{\"ms\": 2000}"));
            Thread.sleep(500);
            assertEquals(first.pid(), s.process("well").pid(), "a server that answers pings is not restarted");
            assertEquals("hi", call(tool(s, "well.echo"), "{\"text\": \"hi\"}"));
        }
    }

    @Test
    void perEpisodeServersGiveEachEpisodeItsOwnProcessStoppedAtRelease() throws Exception {
        try (McpServers s = start("counter { command = " + hocon(McpFixtures.misbehaving("well")) + ", per-episode = true }")) {
            assertNull(s.process("counter"), "no shared process");
            Tool inc = tool(s, "counter.increment");
            assertEquals("1", call(inc, "{}", "ep-a", 30_000));
            assertEquals("2", call(inc, "{}", "ep-a", 30_000));
            assertEquals("1", call(inc, "{}", "ep-b", 30_000), "another episode, another process, its own state");
            ProcessHandle a = s.process("counter", "ep-a");
            ProcessHandle b = s.process("counter", "ep-b");
            assertNotEquals(a.pid(), b.pid());
            assertEquals(2, s.episodeInstances("counter"));
            inc.release("ep-a");
            await(() -> gone(a), Duration.ofSeconds(5), "episode a's process to stop");
            assertFalse(gone(b));
            assertEquals(1, s.episodeInstances("counter"));
            tool(s, "counter.echo").release("ep-b"); // every tool of the episode is released; one is enough
            await(() -> gone(b), Duration.ofSeconds(5), "episode b's process to stop");
            assertEquals(0, s.episodeInstances("counter"));
        }
    }

    @Test
    void aChangedToolListUpdatesSpecsForLaterEpisodesAndKeepsTheNamesOfTheStart() throws Exception {
        try (McpServers s = start("well { command = " + hocon(McpFixtures.misbehaving("well")) + " }")) {
            Tool echo = tool(s, "well.echo");
            ToolSpec before = echo.spec();
            assertEquals("Echoes the text back.", before.description());
            assertEquals("changed", call(tool(s, "well.change"), "{}"));
            await(() -> echo.spec().description().contains("(v2)"), Duration.ofSeconds(10), "the new list");
            assertTrue(call(tool(s, "well.pid"), "{}").startsWith("ERROR: MCP server 'well' no longer lists tool 'pid'"),
                    "a server that is up and no longer lists a tool did not fail: the model reads it");
            assertTrue(s.servers().get(0).notOffered().stream().anyMatch(n -> n.startsWith("added (listed after the node started")),
                    s.servers().get(0).notOffered()::toString);
            assertEquals(List.of("well.echo", "well.increment", "well.pid", "well.wait", "well.change"), s.tools().stream().map(Tool::name).toList());
            ToolSpec after = echo.spec();
            assertTrue(after == echo.spec(), "one spec object per listing: episode setups are rebuilt only on a change");
        }
    }

    @Test
    void streamableHttpServerIsReachedByUrl() throws Exception {
        int port;
        try (var socket = new java.net.ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        ProcessBuilder pb = new ProcessBuilder(McpFixtures.everything("streamableHttp")).redirectErrorStream(true);
        pb.environment().put("PORT", Integer.toString(port));
        Process server = pb.start();
        try {
            java.io.BufferedReader out = new java.io.BufferedReader(new java.io.InputStreamReader(server.getInputStream()));
            String line;
            while ((line = out.readLine()) != null && !line.contains("listening on port")) {
                // its banner
            }
            assertNotNull(line, "the HTTP server did not start");
            Thread drain = new Thread(() -> {
                try {
                    out.transferTo(java.io.Writer.nullWriter());
                } catch (java.io.IOException e) {
                    // it stopped
                }
            });
            drain.setDaemon(true);
            drain.start();
            try (McpServers s = start("web { url = \"http://127.0.0.1:" + port + "/mcp\", prefix = \"web_\" }")) {
                assertTrue(s.servers().get(0).started(), () -> s.servers().get(0).error());
                assertEquals("Echo: over http", call(tool(s, "web_echo"), "{\"message\": \"over http\"}"));
                assertEquals("The sum of 1 and 41 is 42.", call(tool(s, "web_get-sum"), "{\"a\": 1, \"b\": 41}"));
            }
        } finally {
            server.descendants().forEach(ProcessHandle::destroyForcibly);
            server.destroyForcibly();
        }
    }

    @Test
    void aUrlWhereNothingListensFailsToStartSayingSo() throws Exception {
        int port;
        try (var socket = new java.net.ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        try (McpServers s = start("web { url = \"http://127.0.0.1:" + port + "/mcp\", start-timeout = 3s }")) {
            McpServers.ServerStatus st = s.servers().get(0);
            assertFalse(st.started());
            assertTrue(st.error().startsWith("MCP server 'web' could not be reached at http://127.0.0.1:" + port + "/mcp: "), st.error());
            assertTrue(s.tools().isEmpty());
        }
    }

    @Test
    void closingStopsEveryServerProcessAndItsChildren() throws Exception {
        McpServers s = start("a { command = " + hocon(McpFixtures.misbehaving("well")) + " }\n"
                + "b { command = [\"sh\", \"-c\", " + Json.write(String.join(" ", McpFixtures.misbehaving("well").stream()
                        .map(x -> "'" + x + "'").toList()) + " ; true") + "] }");
        ProcessHandle a;
        ProcessHandle b;
        List<ProcessHandle> bChildren;
        try {
            a = s.process("a");
            b = s.process("b");
            bChildren = b.descendants().toList();
            assertFalse(bChildren.isEmpty(), "sh runs node as its child");
        } finally {
            s.close();
        }
        assertTrue(gone(a));
        assertTrue(gone(b));
        for (ProcessHandle c : bChildren) assertTrue(gone(c), "child " + c.pid() + " of b");
        assertTrue(call(tool(s, "a.echo"), "{\"text\": \"x\"}").startsWith("SERVER_DOWN: MCP server 'a' is stopped"));
    }

    @Test
    void aUrlServerGetsItsConfiguredHeadersWithEveryRequest() throws Exception {
        java.util.List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        com.sun.net.httpserver.HttpServer http = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
        http.createContext("/mcp", ex -> {
            seen.add(ex.getRequestMethod() + " " + ex.getRequestHeaders().getFirst("Authorization"));
            ex.sendResponseHeaders(500, -1);
            ex.close();
        });
        http.start();
        try (McpServers s = start("web { url = \"http://127.0.0.1:" + http.getAddress().getPort() + "/mcp\", start-timeout = 3s,"
                + " headers { Authorization = \"Bearer t0ken\" } }")) {
            assertFalse(s.servers().get(0).started());
            assertTrue(seen.contains("POST Bearer t0ken"), seen::toString);
        } finally {
            http.stop(0);
        }
    }
}
