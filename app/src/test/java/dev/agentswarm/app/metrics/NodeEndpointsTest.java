package dev.agentswarm.app.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.app.BatchRunner;
import dev.agentswarm.app.DemoScript;
import dev.agentswarm.app.EpisodeRuns;
import dev.agentswarm.app.SwarmNode;
import dev.agentswarm.core.metrics.NodeMetrics;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.SamplingParams;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.testkit.ScriptedPolicy;
import dev.agentswarm.workers.EmbeddedPolicy;
import dev.agentswarm.workers.EpisodeServices;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.junit.jupiter.api.Test;

/**
 * A node's /metrics, /alive and /ready over real HTTP: values checked against the episodes that ran,
 * two nodes in one JVM counting apart, readiness turning off for a shutdown, and the endpoint off
 * unless configured.
 */
class NodeEndpointsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final Config BASE = ConfigFactory.parseString("pekko.actor.serialize-messages = on").withFallback(SwarmNode.loadConfig(null));
    private static final Config ON = ConfigFactory.parseString("agentswarm.http.port = 0").withFallback(BASE);

    private static HttpResponse<String> get(SwarmNode node, String path, String accept) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(node.httpServer().orElseThrow().url(path))).timeout(Duration.ofSeconds(10));
        if (accept != null) r.header("Accept", accept);
        return HTTP.send(r.build(), HttpResponse.BodyHandlers.ofString());
    }

    static PrometheusText scrape(SwarmNode node) throws Exception {
        HttpResponse<String> r = get(node, "/metrics", null);
        assertEquals(200, r.statusCode());
        String type = r.headers().firstValue("Content-Type").orElseThrow();
        assertTrue(type.equalsIgnoreCase("text/plain; version=0.0.4; charset=utf-8"), type);
        return PrometheusText.parse(r.body());
    }

    @Test
    void aWorkerNodeOnTheEmbeddedModelShowsWhatItsEpisodesDid() throws Exception {
        Config cfg = ConfigFactory.parseString("agentswarm.policy.embedded.model { preset = tiny, context = 2048 }").withFallback(ON);
        EpisodeSpec spec = EpisodeSpec.fromConfig(cfg.getConfig("agentswarm.episode")).withLimits(2, 4000, 1500, 60_000, 5_000)
                .withSampling(new SamplingParams(1.0, 1.0, 0, 8, List.of(), 7L));
        try (SwarmNode node = SwarmNode.start(cfg, system -> new EpisodeServices(EmbeddedPolicy.spawn(system, cfg), EpisodeRuns.builtInTools()),
                null)) {
            List<BatchRunner.Job> jobs = java.util.stream.IntStream.range(0, 6)
                    .mapToObj(i -> new BatchRunner.Job("e" + i, "g", Task.of("t" + i, "What is " + i + " + 1?"), spec)).toList();
            List<Trajectory> ran = EpisodeRuns.runAll(node, jobs, 6, t -> {});
            PrometheusText m = scrape(node);
            String address = node.address().toString();

            Map<StopReason, Long> byReason = new EnumMap<>(StopReason.class);
            for (Trajectory t : ran) byReason.merge(t.stopReason(), 1L, Long::sum);
            for (StopReason r : StopReason.values()) {
                assertEquals(byReason.getOrDefault(r, 0L), m.value("agentswarm_episodes_finished_total",
                        Map.of("stop_reason", r.name().toLowerCase(Locale.ROOT), "node", address)), 0.0, r + " of " + byReason);
            }
            assertEquals(ran.stream().mapToInt(t -> t.stats().turns()).sum(), m.value("agentswarm_episode_turns_total"), 0.0);
            long tokens = ran.stream().mapToLong(t -> t.stats().completionTokens()).sum();
            assertTrue(tokens > 0);
            assertEquals(tokens, m.value("agentswarm_tokens_generated_tokens_total"), 0.0);
            assertEquals(tokens, m.value("agentswarm_policy_tokens_generated_tokens_total"), 0.0, "every token came from the policy server");
            assertEquals(0, m.value("agentswarm_policy_version"), 0.0);
            assertEquals(0, m.value("agentswarm_episodes_running"), 0.0);
            assertEquals(0, m.value("agentswarm_policy_queue_depth"), 0.0);
            assertTrue(m.value("agentswarm_policy_batch_size_sequences_count") > 0);
            assertTrue(m.value("agentswarm_policy_batch_size_sequences_max") >= 1);
            assertEquals(1, m.value("agentswarm_cluster_members", Map.of("status", "up")), 0.0);
            assertEquals(0, m.value("agentswarm_cluster_members_unreachable"), 0.0);
            assertEquals(0, m.value("agentswarm_sandbox_slots_in_use"), 0.0);
            assertTrue(m.value("agentswarm_sandbox_slots") > 0);
            // The node's identity on every meter, and the JVM's own meters beside ours.
            assertEquals("learner,orchestrator,worker", m.find("agentswarm_episode_turns_total", Map.of()).get(0).labels().get("roles"));
            assertTrue(m.sum("jvm_memory_used_bytes", Map.of("node", address)) > 0);
            assertTrue(m.value("jvm_threads_live_threads") > 0);
            assertTrue(m.value("process_uptime_seconds") > 0);

            HttpResponse<String> open = get(node, "/metrics", "application/openmetrics-text; version=1.0.0");
            assertTrue(open.headers().firstValue("Content-Type").orElseThrow().startsWith("application/openmetrics-text"), open.headers().toString());
            assertTrue(open.body().strip().endsWith("# EOF"), "OpenMetrics ends with # EOF");
            assertTrue(open.body().contains("agentswarm_episodes_finished_total{"), open.body());

            HttpResponse<String> alive = get(node, "/alive", null);
            assertEquals(200, alive.statusCode());
            assertEquals("alive", JSON.readTree(alive.body()).path("status").asText());
            HttpResponse<String> ready = get(node, "/ready", null);
            assertEquals(200, ready.statusCode(), ready.body());
            JsonNode body = JSON.readTree(ready.body());
            assertEquals("ready", body.path("status").asText());
            List<String> checks = new java.util.ArrayList<>();
            body.path("checks").forEach(c -> checks.add(c.asText()));
            assertTrue(checks.containsAll(List.of("start", "cluster", "worker-region", "policy-server")), checks.toString());
            assertEquals(404, get(node, "/nothing", null).statusCode());
        }
    }

    @Test
    void twoNodesInOneJvmCountTheirOwnEpisodes() throws Exception {
        List<Task> tasks = DemoScript.tasks(60, 3);
        ScriptedPolicy policyA = DemoScript.policy(tasks);
        ScriptedPolicy policyB = DemoScript.policy(tasks);
        EpisodeSpec spec = EpisodeSpec.fromConfig(BASE.getConfig("agentswarm.episode"));
        try (SwarmNode a = SwarmNode.start(ON, new EpisodeServices(policyA, EpisodeRuns.builtInTools()), null);
             SwarmNode b = SwarmNode.start(ON, new EpisodeServices(policyB, EpisodeRuns.builtInTools()), a.address())) {
            List<Trajectory> ran = EpisodeRuns.runAll(a, tasks.stream().map(t -> new BatchRunner.Job("x-" + t.id(), "g", t, spec)).toList(), 32,
                    t -> {});
            assertTrue(ran.stream().allMatch(t -> t.stopReason() == StopReason.FINAL_ANSWER));
            assertNotEquals(a.httpServer().orElseThrow().address().getPort(), b.httpServer().orElseThrow().address().getPort());
            PrometheusText ma = scrape(a);
            PrometheusText mb = scrape(b);
            assertTrue(policyA.calls() > 0 && policyB.calls() > 0, "episodes ran on both: " + policyA.calls() + " / " + policyB.calls());
            // Each node counts the turns its own policy answered, under its own address.
            assertEquals(policyA.calls(), ma.value("agentswarm_episode_turns_total", Map.of("node", a.address().toString())), 0.0);
            assertEquals(policyB.calls(), mb.value("agentswarm_episode_turns_total", Map.of("node", b.address().toString())), 0.0);
            double finishedA = ma.value("agentswarm_episodes_finished_total", Map.of("stop_reason", "final_answer"));
            double finishedB = mb.value("agentswarm_episodes_finished_total", Map.of("stop_reason", "final_answer"));
            assertTrue(finishedA > 0 && finishedB > 0);
            assertEquals(60, finishedA + finishedB, 0.0);
            assertEquals(2, ma.value("agentswarm_cluster_members", Map.of("status", "up")), 0.0);
            assertEquals(2, mb.value("agentswarm_cluster_members", Map.of("status", "up")), 0.0);
            // The same counts are what the nodes' registries hold: nothing recorded on Micrometer's global registry.
            assertEquals(finishedA, NodeMetrics.get(a.system()).registry().get("agentswarm.episodes.finished")
                    .tag("stop_reason", "final_answer").counter().count(), 0.0);
            assertEquals(0, io.micrometer.core.instrument.Metrics.globalRegistry.getMeters().size());
        }
    }

    @Test
    void readyIsRefusedWhileACheckIsOpenAndFromTheStartOfAShutdown() throws Exception {
        SwarmNode node = SwarmNode.start(ON, new EpisodeServices(ScriptedPolicy.replies("done"), EpisodeRuns.builtInTools()), null);
        try {
            assertEquals(200, get(node, "/ready", null).statusCode());
            NodeReadiness.get(node.system()).expect("warm-up", "the cache is not warm yet");
            HttpResponse<String> waiting = get(node, "/ready", null);
            assertEquals(503, waiting.statusCode());
            JsonNode body = JSON.readTree(waiting.body());
            assertEquals("not ready", body.path("status").asText());
            assertEquals("the cache is not warm yet", body.path("waiting").path("warm-up").asText(), waiting.body());
            NodeReadiness.get(node.system()).done("warm-up");
            assertEquals(200, get(node, "/ready", null).statusCode());

            // Hold the shutdown after its first phases, as a node's workers draining would: ready is off, the endpoints still answer.
            CompletableFuture<Done> drained = new CompletableFuture<>();
            CoordinatedShutdown shutdown = CoordinatedShutdown.get(node.system());
            shutdown.addTask(CoordinatedShutdown.PhaseServiceRequestsDone(), "test-drain", () -> drained);
            shutdown.run(CoordinatedShutdown.unknownReason());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            HttpResponse<String> leaving;
            do {
                leaving = get(node, "/ready", null);
                assertTrue(System.nanoTime() < deadline, "ready stayed on during the shutdown: " + leaving.body());
            } while (leaving.statusCode() == 200);
            assertEquals(503, leaving.statusCode());
            assertTrue(JSON.readTree(leaving.body()).path("waiting").has("shutdown"), leaving.body());
            assertEquals(200, get(node, "/alive", null).statusCode());
            assertEquals(200, get(node, "/metrics", null).statusCode());
            drained.complete(Done.getInstance());
            node.system().getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
            Exception gone = assertThrows(Exception.class, () -> get(node, "/alive", null));
            assertTrue(gone instanceof ConnectException || gone.getCause() instanceof ConnectException, gone.toString());
        } finally {
            node.close();
        }
    }

    @Test
    void theEndpointIsOffUnlessConfigured() throws Exception {
        try (SwarmNode node = SwarmNode.start(BASE, new EpisodeServices(ScriptedPolicy.replies("done"), EpisodeRuns.builtInTools()), null)) {
            assertTrue(node.httpServer().isEmpty());
            assertFalse(NodeMetrics.get(node.system()).composite().getRegistries().stream().anyMatch(r -> r instanceof PrometheusMeterRegistry),
                    "nothing renders the meters");
            // They count all the same.
            assertEquals(1, NodeMetrics.get(node.system()).registry().get("agentswarm.cluster.members").tag("status", "up").gauge().value());
        }
    }

    @Test
    void badSettingsAreRefusedNamingTheKey() throws Exception {
        for (String bad : List.of("70000", "-1", "\"eighty\"", "80.5")) {
            var e = assertThrows(IllegalArgumentException.class,
                    () -> HttpSettings.fromConfig(ConfigFactory.parseString("agentswarm.http.port = " + bad).withFallback(BASE)));
            assertTrue(e.getMessage().contains("agentswarm.http.port"), e.getMessage());
        }
        assertTrue(HttpSettings.fromConfig(ConfigFactory.parseString("agentswarm.http.port = off").withFallback(BASE)).port().isEmpty());
        assertEquals(9464, HttpSettings.fromConfig(ConfigFactory.parseString("agentswarm.http.port = 9464").withFallback(BASE)).port().getAsInt());
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Config inUse = ConfigFactory.parseString("agentswarm.http.port = " + taken.getLocalPort()).withFallback(BASE);
            var e = assertThrows(IllegalArgumentException.class,
                    () -> SwarmNode.start(inUse, new EpisodeServices(ScriptedPolicy.replies("done"), EpisodeRuns.builtInTools()), null).close());
            assertTrue(e.getMessage().contains("agentswarm.http.port") && e.getMessage().contains("in use"), e.getMessage());
        }
    }
}
