package dev.agentswarm.app.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.errors.OpenAIServiceException;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.app.Main;
import dev.agentswarm.app.SwarmNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.SamplingParams;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.orchestrator.swarm.SwarmSettings;
import dev.agentswarm.policy.embedded.Generation;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import picocli.CommandLine;

/**
 * {@code swarm serve} against clients that should not get what they ask: no key, a wrong key, a
 * non-loopback address without a key, 128 choices, more swarms than the cap, a reader that never
 * reads, a connection that sends nothing. One node on the tiny model with two keys and small bounds;
 * beside its binding, others on the same node with other access rules or with models that are slow
 * or write a lot on purpose.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ServeHostileClientsTest {

    private static final String KEY = "test-key-one";
    private static final String OTHER_KEY = "test-key-two";
    private static final String FINISH = "<tool_call>{\"name\": \"finish\", \"arguments\": {\"answer\": \"done\"}}</tool_call>";

    private static final Path RUNS = Path.of("target", "hostile-runs");

    private Config config;
    private Path expiredRun;
    private Path otherRun;
    private ServingNode serving;
    private String base;
    private final CompletableFuture<Void> gate = new CompletableFuture<>();
    private final AtomicInteger heldCalls = new AtomicInteger();
    private final ExecutorService modelThreads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "test-model");
        t.setDaemon(true);
        return t;
    });
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    void start() throws Exception {
        config = ConfigFactory.parseString("""
                pekko.actor.serialize-messages = on
                agentswarm.policy.embedded.model.preset = tiny
                agentswarm.serve { max-n = 4, idle-timeout = 5 s, keep-alive = 1 s, stream-buffer = 16 KiB }
                agentswarm.serve.swarm { max-concurrent = 1, retry-after = 7 s }
                """).withFallback(SwarmNode.loadConfig(null));
        // A swarm whose task says "hold" waits for the gate before its root finishes; any other finishes at once.
        Policy gated = new Policy() {
            @Override
            public CompletableFuture<Completion> complete(CompletionRequest req) {
                Completion finish = Completion.ofText(FINISH, 10, 10);
                boolean hold = req.messages().stream().anyMatch(m -> m.content() != null && m.content().contains("hold"));
                if (!hold) return CompletableFuture.completedFuture(finish);
                heldCalls.incrementAndGet();
                return gate.thenApply(x -> finish);
            }
        };
        // A served swarm's folder from long ago, and another command's: the server removes the first only.
        expiredRun = oldFolder(RUNS.resolve("serve-swarm-20250101-000000-1"));
        otherRun = oldFolder(RUNS.resolve("train-20250101-000000"));
        serving = ServingNode.start(config, "tiny", true, RUNS, "127.0.0.1", 0,
                new ServeAccess(ApiKeys.of(List.of(KEY, OTHER_KEY)), false, false), embedded -> gated);
        base = serving.baseUrl().replaceFirst("/v1$", "");
    }

    private static Path oldFolder(Path dir) throws Exception {
        java.nio.file.Files.createDirectories(dir);
        java.nio.file.attribute.FileTime old = java.nio.file.attribute.FileTime.from(java.time.Instant.now().minus(Duration.ofDays(30)));
        java.nio.file.Files.setLastModifiedTime(java.nio.file.Files.writeString(dir.resolve("trace.jsonl"), "{}\n"), old);
        java.nio.file.Files.setLastModifiedTime(dir, old);
        return dir;
    }

    @Test
    void servedSwarmFoldersPastTheirRetentionAreRemoved() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (java.nio.file.Files.exists(expiredRun) && System.nanoTime() < deadline) Thread.sleep(20);
        assertFalse(java.nio.file.Files.exists(expiredRun), "a served swarm's folder 30 days old (keep-runs 7 d)");
        assertTrue(java.nio.file.Files.exists(otherRun), "another command's folder is not the server's");
    }

    @Test
    void expiredFoldersAreLookedForAgainWithoutARequest() throws Exception {
        Path runs = Path.of("target", "hostile-sweep-runs");
        var system = serving.node().system();
        new SwarmChat(serving.node(), SwarmSettings.fromConfig(config, java.util.Set.of("calculator", "finish")), runs,
                system.dispatchers().lookup(DispatcherSelector.blocking()), ServeSettings.fromConfig(config), Duration.ofMillis(200));
        Thread.sleep(500); // past the sweep at start: only a later one can find this folder
        Path expired = oldFolder(runs.resolve("serve-swarm-20250101-000000-2"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (java.nio.file.Files.exists(expired) && System.nanoTime() < deadline) Thread.sleep(20);
        assertFalse(java.nio.file.Files.exists(expired), "a folder that expired while the server ran, no swarm requested");
    }

    @AfterAll
    void stop() {
        gate.complete(null);
        if (serving != null) serving.close();
        modelThreads.shutdownNow();
    }

    private HttpResponse<String> get(String url, String authorization) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60));
        if (authorization != null) b.header("Authorization", authorization);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String url, String authorization, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        if (authorization != null) b.header("Authorization", authorization);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String chat(String model, String extra) {
        return "{\"model\": \"" + model + "\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}], \"max_tokens\": 2" + extra + "}";
    }

    @Test
    void noKeyOrAWrongKeyIsRefusedAndEitherKeyIsTaken() throws Exception {
        for (String auth : Arrays.asList(null, "Bearer wrong-key", "Bearer " + KEY + "x", "Basic " + KEY, KEY)) {
            HttpResponse<String> models = get(base + "/v1/models", auth);
            assertEquals(401, models.statusCode(), auth + ": " + models.body());
            assertEquals("invalid_api_key", Json.parse(models.body()).get("error").get("code").asText());
            assertEquals("Bearer", models.headers().firstValue("WWW-Authenticate").orElse(null));
            assertFalse(models.body().contains(KEY), "the key is never echoed");
            assertEquals(401, post(base + "/v1/chat/completions", auth, chat("tiny", "")).statusCode(), String.valueOf(auth));
            assertEquals(401, get(base + "/metrics", auth).statusCode(), "metrics are behind the key: " + auth);
        }
        for (String key : List.of(KEY, OTHER_KEY)) {
            assertEquals(200, get(base + "/v1/models", "Bearer " + key).statusCode());
            HttpResponse<String> c = post(base + "/v1/chat/completions", "Bearer " + key, chat("tiny", ""));
            assertEquals(200, c.statusCode(), c.body());
            assertEquals(200, get(base + "/metrics", "bearer " + key).statusCode(), "the scheme is case-insensitive");
        }
        assertEquals(200, get(base + "/alive", null).statusCode(), "probes need no key");
        assertEquals(200, get(base + "/ready", null).statusCode(), "probes need no key");

        // The official SDK sends its api key as the Bearer token.
        OpenAIClient wrong = sdk(serving.baseUrl(), "wrong-key");
        OpenAIClient right = sdk(serving.baseUrl(), KEY);
        try {
            OpenAIServiceException e = assertThrows(OpenAIServiceException.class, () -> wrong.models().list());
            assertEquals(401, e.statusCode());
            assertEquals(List.of("tiny", "swarm"), right.models().list().data().stream().map(m -> m.id()).toList());
        } finally {
            wrong.close();
            right.close();
        }
    }

    private static OpenAIClient sdk(String url, String key) {
        return OpenAIOkHttpClient.builder().baseUrl(url).apiKey(key).maxRetries(0).build();
    }

    @Test
    void metricsOpenLeavesOnlyMetricsOpenAndInsecureSaysSoInReady() throws Exception {
        ServeAccess metricsOpen = new ServeAccess(ApiKeys.of(List.of(KEY)), true, false);
        ServerBinding b = bind(metricsOpen, new OpenAiRoutes(List.of(), null, ServeSettings.fromConfig(config)));
        try {
            String url = "http://127.0.0.1:" + b.localAddress().getPort();
            assertEquals(200, get(url + "/metrics", null).statusCode());
            assertEquals(401, get(url + "/v1/models", null).statusCode());
            assertFalse(get(url + "/ready", null).body().contains("warning"));
        } finally {
            b.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        ServeAccess insecure = new ServeAccess(ApiKeys.none(), false, true);
        insecure.checkHost("0.0.0.0"); // allowed, with the warning
        ServerBinding open = bind(insecure, new OpenAiRoutes(List.of(), null, ServeSettings.fromConfig(config)));
        try {
            String url = "http://127.0.0.1:" + open.localAddress().getPort();
            HttpResponse<String> ready = get(url + "/ready", null);
            assertEquals(200, ready.statusCode());
            assertEquals(ServeAccess.INSECURE_WARNING, Json.parse(ready.body()).get("warning").asText());
            assertEquals(200, get(url + "/v1/models", null).statusCode());
        } finally {
            open.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    private ServerBinding bind(ServeAccess access, OpenAiRoutes routes) throws Exception {
        var system = serving.node().system();
        return OpenAiServer.bind(system, "127.0.0.1", 0,
                access.route(routes.route(), dev.agentswarm.app.metrics.NodeEndpoints.of(system, access.warning()).route()),
                ServeSettings.fromConfig(config).idleTimeout()).toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @Test
    void aNonLoopbackHostWithoutAKeyIsRefusedAtStart() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ServingNode.start(config, "tiny", false, RUNS, "0.0.0.0", 0));
        assertTrue(e.getMessage().contains("--api-key") && e.getMessage().contains("--insecure"), e.getMessage());
        ServeAccess.loopbackOnly().checkHost("127.0.0.1");
        ServeAccess.loopbackOnly().checkHost("localhost");
        ServeAccess.loopbackOnly().checkHost("::1");
        // The same rule as a cluster node's plain TCP (LoopbackHost): judged from the text, no name looked up.
        ServeAccess.loopbackOnly().checkHost("[::1]");
        ServeAccess.loopbackOnly().checkHost("127.8.9.10");
        assertThrows(IllegalArgumentException.class, () -> ServeAccess.loopbackOnly().checkHost("::2"));
        assertThrows(IllegalArgumentException.class, () -> ServeAccess.loopbackOnly().checkHost("localhost.example.com"));
        new ServeAccess(ApiKeys.of(List.of(KEY)), false, false).checkHost("0.0.0.0");

        // The command refuses before loading a model (it would otherwise serve, and this would time out).
        String[] refused = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            StringWriter err = new StringWriter();
            CommandLine cl = Main.commandLine();
            cl.setErr(new PrintWriter(err, true));
            int exit = cl.execute("serve", "--host", "0.0.0.0", "--port", "0", "--preset", "tiny");
            return new String[] {String.valueOf(exit), err.toString()};
        });
        assertNotEquals("0", refused[0]);
        assertTrue(refused[1].contains("--host 0.0.0.0") && refused[1].contains("SWARM_API_KEY"), refused[1]);
        assertThrows(IllegalArgumentException.class, () -> ApiKeys.of(List.of(" ")), "a blank key would let anyone in");
    }

    @Test
    void theKeyComesFromTheOptionsOrTheEnvironment() {
        dev.agentswarm.app.cli.ServeCommandAccess.access("from-env").checkHost("0.0.0.0");
        dev.agentswarm.app.cli.ServeCommandAccess.access(null, "--api-key", "a1", "--api-key", "b2").checkHost("0.0.0.0");
        assertThrows(IllegalArgumentException.class, () -> dev.agentswarm.app.cli.ServeCommandAccess.access("").checkHost("0.0.0.0"),
                "an empty SWARM_API_KEY is no key");
        assertTrue(dev.agentswarm.app.cli.ServeCommandAccess.access(null, "--insecure").warns());
        assertFalse(dev.agentswarm.app.cli.ServeCommandAccess.access("k", "--insecure").warns(), "a key makes --insecure moot");
    }

    @Test
    void nPastTheConfiguredCapIsRefused() throws Exception {
        HttpResponse<String> r = post(base + "/v1/chat/completions", "Bearer " + KEY, chat("tiny", ", \"n\": 128"));
        assertEquals(400, r.statusCode(), r.body());
        JsonNode error = Json.parse(r.body()).get("error");
        assertEquals("n", error.get("param").asText());
        assertTrue(error.get("message").asText().contains("at most 4"), r.body());
        assertEquals(200, post(base + "/v1/chat/completions", "Bearer " + KEY, chat("tiny", ", \"n\": 4")).statusCode());
    }

    @Test
    void moreSwarmsThanTheCapAreAnswered429WithRetryAfter() throws Exception {
        String held = "{\"model\": \"swarm\", \"messages\": [{\"role\": \"user\", \"content\": \"hold on\"}]}";
        String quick = "{\"model\": \"swarm\", \"messages\": [{\"role\": \"user\", \"content\": \"be quick\"}]}";
        CompletableFuture<HttpResponse<String>> first = http.sendAsync(HttpRequest.newBuilder(URI.create(base + "/v1/chat/completions"))
                .header("Authorization", "Bearer " + KEY).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(held)).build(), HttpResponse.BodyHandlers.ofString());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (heldCalls.get() == 0 && System.nanoTime() < deadline) Thread.sleep(20);
        assertTrue(heldCalls.get() > 0, "the first swarm started");

        HttpResponse<String> second = post(base + "/v1/chat/completions", "Bearer " + KEY, quick);
        assertEquals(429, second.statusCode(), second.body());
        assertEquals("7", second.headers().firstValue("Retry-After").orElse(null));
        assertEquals("too_many_swarms", Json.parse(second.body()).get("error").get("code").asText());

        gate.complete(null);
        HttpResponse<String> answered = first.get(60, TimeUnit.SECONDS);
        assertEquals(200, answered.statusCode(), answered.body());
        assertTrue(answered.body().contains("\"done\""), answered.body());
        HttpResponse<String> third = post(base + "/v1/chat/completions", "Bearer " + KEY, quick);
        assertEquals(200, third.statusCode(), "the ended swarm freed its place: " + third.body());
    }

    @Test
    void aServedSwarmsAgentsGetOnlyTheBuiltInToolsUnlessAllowed() {
        assertEquals(java.util.Set.of("calculator", "finish"), serving.tools());
        Config allowPython = ConfigFactory.parseString("agentswarm.serve.swarm.tools = [python]").withFallback(config);
        assertTrue(ServingNode.swarmTools(allowPython).names().containsAll(List.of("calculator", "finish", "python")));
        assertFalse(ServingNode.swarmTools(allowPython).names().contains("bash"));
        Config allowUnknown = ConfigFactory.parseString("agentswarm.serve.swarm.tools = [rm_rf]").withFallback(config);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ServingNode.swarmTools(allowUnknown));
        assertTrue(e.getMessage().contains("agentswarm.serve.swarm.tools") && e.getMessage().contains("rm_rf"), e.getMessage());
    }

    @Test
    void aReaderThatNeverReadsLosesItsStreamAndStopsItsGeneration() throws Exception {
        CountDownLatch cancelled = new CountDownLatch(1);
        AtomicLong emitted = new AtomicLong();
        ServedModel flood = new TestModel("flood") {
            @Override
            public Runnable generate(int[] prompt, SamplingParams sampling, boolean stream, Listener listener) {
                java.util.concurrent.atomic.AtomicBoolean stopped = new java.util.concurrent.atomic.AtomicBoolean();
                modelThreads.execute(() -> {
                    // 10,000 tokens of 1 KB each: far more than the socket buffers and the 16 KiB stream buffer.
                    for (int i = 0; i < 10_000 && !stopped.get(); i++) {
                        listener.tokens(new int[] {1}, new float[] {-0.1f}, null);
                        emitted.incrementAndGet();
                    }
                    if (!stopped.get()) listener.done(generation(10_000, prompt));
                });
                return () -> {
                    stopped.set(true);
                    cancelled.countDown();
                };
            }
        };
        ServerBinding b = bind(ServeAccess.loopbackOnly(), new OpenAiRoutes(List.of(flood), null, ServeSettings.fromConfig(config)));
        try (Socket s = new Socket()) {
            s.setReceiveBufferSize(4096);
            s.connect(new InetSocketAddress("127.0.0.1", b.localAddress().getPort()));
            String body = chat("flood", ", \"stream\": true");
            s.getOutputStream().write(("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8));
            // Read nothing: the server must give up on this stream rather than hold its 10 MB.
            assertTrue(cancelled.await(30, TimeUnit.SECONDS), "the generation of a stream nobody reads was not stopped ("
                    + emitted.get() + " tokens emitted)");
            String read = readAll(s.getInputStream(), Duration.ofSeconds(30));
            assertFalse(read.contains("[DONE]"), "the stream ended early, not as if complete");
            assertTrue(read.length() < 5_000_000, "read " + read.length() + " chars");
        } finally {
            b.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aConnectionThatSendsNothingIsClosed() throws Exception {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", serving.address().getPort()));
            s.setSoTimeout(30_000);
            long t0 = System.nanoTime();
            int first;
            try {
                first = s.getInputStream().read();
            } catch (SocketTimeoutException e) {
                throw new AssertionError("an idle connection was still open after 30 s", e);
            } catch (java.io.IOException e) {
                first = -1; // reset: closed as well
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            assertEquals(-1, first);
            assertTrue(seconds >= 4 && seconds < 25, "closed after " + seconds + " s (idle-timeout 5 s)");
        }
    }

    @Test
    void aSlowAnswerKeepsItsConnectionPlainAndStreamed() throws Exception {
        // 7 s without a token: longer than the 5 s idle timeout, which alone would cut the connection.
        ServedModel slow = new TestModel("slow") {
            @Override
            public Runnable generate(int[] prompt, SamplingParams sampling, boolean stream, Listener listener) {
                modelThreads.execute(() -> {
                    try {
                        // Not a token for 7 s, as behind a busy batch: the stream must begin without one.
                        Thread.sleep(7_000);
                        listener.done(generation(1, prompt));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                return () -> {};
            }
        };
        ServerBinding b = bind(ServeAccess.loopbackOnly(), new OpenAiRoutes(List.of(slow), null, ServeSettings.fromConfig(config)));
        try {
            String url = "http://127.0.0.1:" + b.localAddress().getPort() + "/v1/chat/completions";
            OpenAIClient client = sdk("http://127.0.0.1:" + b.localAddress().getPort() + "/v1", "none");
            try {
                // The three at once: each waits 7 s.
                var plainAsync = CompletableFuture.supplyAsync(() -> unchecked(() -> post(url, null, chat("slow", ""))), modelThreads);
                var streamedAsync = CompletableFuture.supplyAsync(() -> unchecked(() -> post(url, null, chat("slow", ", \"stream\": true"))),
                        modelThreads);
                var sdkAsync = client.async().chat().completions().create(com.openai.models.chat.completions.ChatCompletionCreateParams
                        .builder().model("slow").addUserMessage("hi").build());
                HttpResponse<String> plain = plainAsync.get(60, TimeUnit.SECONDS);
                assertEquals(200, plain.statusCode(), plain.body());
                assertTrue(plain.body().startsWith("\n"), "padded while the answer was made");
                assertEquals("stop", Json.parse(plain.body()).get("choices").get(0).get("finish_reason").asText(), plain.body());
                HttpResponse<String> streamed = streamedAsync.get(60, TimeUnit.SECONDS);
                assertEquals(200, streamed.statusCode(), streamed.body());
                assertTrue(streamed.body().contains(": keep-alive"), streamed.body());
                assertTrue(streamed.body().strip().endsWith("data: [DONE]"), streamed.body());
                assertEquals(1, sdkAsync.get(60, TimeUnit.SECONDS).choices().size(), "the SDK reads a padded answer");
            } finally {
                client.close();
            }
        } finally {
            b.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    interface IoCall<T> {
        T call() throws Exception;
    }

    private static <T> T unchecked(IoCall<T> call) {
        try {
            return call.call();
        } catch (Exception e) {
            throw new java.util.concurrent.CompletionException(e);
        }
    }

    private static String readAll(InputStream in, Duration limit) throws Exception {
        StringBuilder out = new StringBuilder();
        byte[] buf = new byte[65536];
        long deadline = System.nanoTime() + limit.toNanos();
        try {
            for (int n; (n = in.read(buf)) >= 0 && System.nanoTime() < deadline; ) out.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
        } catch (java.io.IOException e) {
            // reset by the server: what came before is what it sent
        }
        return out.toString();
    }

    /** A model of one-token prompts whose every token is 1,000 bytes of "x". */
    abstract static class TestModel implements ServedModel {
        private final String id;
        private final AtomicLong ids = new AtomicLong();

        TestModel(String id) {
            this.id = id;
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public int[] prompt(List<Message> messages, List<ToolSpec> tools) {
            return new int[] {0};
        }

        @Override
        public byte[] tokenBytes(int tokenId) {
            byte[] b = new byte[1000];
            Arrays.fill(b, (byte) 'x');
            return b;
        }

        Generation generation(int tokens, int[] prompt) {
            int[] t = new int[tokens];
            Arrays.fill(t, 1);
            float[] lp = new float[tokens];
            Arrays.fill(lp, -0.1f);
            return new Generation(ids.incrementAndGet(), t, lp, "x".repeat(1000 * tokens), FinishReason.STOP, 0, 0, prompt.length, 0, 0);
        }
    }
}
