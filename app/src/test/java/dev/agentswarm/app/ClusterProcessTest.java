package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.json.MetricsLog;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.workers.EpisodeServices;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real separate JVMs: three {@code swarm node} worker processes join this JVM's orchestrator node,
 * 300 episodes run on them, and one worker process is killed with SIGKILL mid-run. Every episode
 * still completes, each exactly once in the trajectory file: the killed node's episodes are sent
 * again as soon as the cluster removes it, and sharding runs them on the survivors.
 */
class ClusterProcessTest {

    static final String SCRIPT = """
            <tool_call>{"name": "calculator", "arguments": {"expression": "6 * 7"}}</tool_call>
            ---
            <tool_call>{"name": "calculator", "arguments": {"expression": "40 + 2"}}</tool_call>
            ---
            The answer is 42.
            """;

    private static List<BatchRunner.Job> jobs(String prefix, int n, EpisodeSpec spec) {
        List<BatchRunner.Job> jobs = new ArrayList<>();
        for (int i = 0; i < n; i++) jobs.add(new BatchRunner.Job(prefix + i, prefix + i, Task.of("t" + i, "What is 6 * 7?"), spec));
        return jobs;
    }

    @Test
    void aWorkerProcessKilledMidRunLosesNoEpisodeAndDuplicatesNone(@TempDir Path dir) throws Exception {
        Path script = dir.resolve("script.txt");
        Files.writeString(script, SCRIPT);
        Config cfg = SwarmNode.loadConfig(null)
                .withValue("pekko.cluster.roles", ConfigValueFactory.fromIterable(List.of(SwarmNode.ORCHESTRATOR_ROLE)));
        List<NodeProcess> workers = new ArrayList<>();
        try (SwarmNode orchestrator = SwarmNode.start(cfg, system -> {
            throw new IllegalStateException("no workers here");
        }, null)) {
            String seed = orchestrator.address().toString();
            for (int i = 0; i < 3; i++) {
                // Each episode: three turns of a model that answers after 700 ms, so all 300 are in flight when one node dies.
                workers.add(NodeProcess.start(List.of("-Xmx256m", "-XX:+UseSerialGC"), List.of("--roles", "worker", "--seed", seed,
                        "--script", script.toString(), "--latency-ms", "700"), null));
            }
            for (NodeProcess w : workers) w.awaitUp(Duration.ofSeconds(90));
            orchestrator.awaitWorkers(3, Duration.ofSeconds(30));

            EpisodeSpec spec = EpisodeSpec.fromConfig(cfg.getConfig("agentswarm.episode")).withTools(List.of("calculator"));
            // Warm-up: every worker entity placed and every node's episode path loaded, so the kill lands mid-episode.
            EpisodeRuns.runAll(orchestrator, jobs("warm-", 128, spec), 128, t -> {});
            List<BatchRunner.Job> jobs = jobs("ep-", 300, spec);
            Path store = dir.resolve("trajectories.jsonl");
            AtomicInteger answered = new AtomicInteger();
            CompletableFuture<List<Trajectory>> run = new CompletableFuture<>();
            long[] lastAnswerNanos = {0};
            try (MetricsLog log = MetricsLog.appendOnly(store)) {
                Thread runner = new Thread(() -> {
                    try {
                        run.complete(EpisodeRuns.runAll(orchestrator, jobs, 300, t -> {
                            log.append(t);
                            answered.incrementAndGet();
                            lastAnswerNanos[0] = System.nanoTime();
                        }));
                    } catch (Throwable e) {
                        run.completeExceptionally(e);
                    }
                });
                runner.start();
                Thread.sleep(1000); // every episode is out and in its first or second turn
                assertEquals(0, answered.get(), "nothing answered before the kill: the episodes are still running");
                NodeProcess victim = workers.get(1);
                long killedAt = System.nanoTime();
                victim.kill();
                List<Trajectory> out = run.get(120, TimeUnit.SECONDS);
                double recovery = (lastAnswerNanos[0] - killedAt) / 1e9;
                System.out.printf("300 episodes on 3 worker JVMs, one killed with SIGKILL: last episode done %.1f s after the kill%n", recovery);
                // Detection (~5 s), the resolver's stable-after (5 s), removal, and a removal margin when the dead node held the shard coordinator.
                assertTrue(recovery < 90, "recovered within 90 s of the kill (about 20 s on a quiet 2-core machine): " + recovery);
                assertEquals(300, out.size());
                for (Trajectory t : out) {
                    assertEquals(StopReason.FINAL_ANSWER, t.stopReason(), t.episodeId() + ": " + t.error());
                    assertEquals("The answer is 42.", t.finalAnswer());
                }
            }
            Map<String, Integer> times = new HashMap<>();
            for (String line : Files.readAllLines(store)) {
                JsonNode j = Json.parse(line);
                times.merge(j.get("episodeId").asText(), 1, Integer::sum);
            }
            assertEquals(300, times.size(), "every episode is in the store");
            assertTrue(times.values().stream().allMatch(n -> n == 1), "no episode twice in the store: " + times);
            assertEquals(2, orchestrator.upMembers("worker"), "the killed node was removed, the other two serve on");
            // SIGTERM: a node leaves the cluster cleanly and stops. Leaving is quick (no failure detection, no
            // resolver's stable-after), so the orchestrator sees it gone well before a dead node would be downed.
            NodeProcess leaving = workers.get(0);
            long stopping = System.nanoTime();
            assertEquals(143, leaving.stop(Duration.ofSeconds(90)), "the JVM ended by SIGTERM, after its shutdown");
            while (orchestrator.upMembers("worker") > 1 && System.nanoTime() - stopping < TimeUnit.SECONDS.toNanos(20)) Thread.sleep(20);
            double left = (System.nanoTime() - stopping) / 1e9;
            assertEquals(1, orchestrator.upMembers("worker"), "the stopped node left the cluster");
            assertTrue(left < 8, "a clean leave, not a downing after failure detection: " + left + " s");
        } finally {
            for (NodeProcess w : workers) w.close();
        }
    }
}
