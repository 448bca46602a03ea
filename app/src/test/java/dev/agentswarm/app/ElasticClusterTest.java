package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.testkit.ScriptedPolicy;
import dev.agentswarm.workers.EpisodeServices;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Worker nodes join and leave during a run, several nodes in one JVM: a node that joins takes work
 * (sharding moves workers to it), a node that leaves gracefully hands its workers over after they
 * drain, and every episode is answered once, completed, none cancelled.
 */
class ElasticClusterTest {

    static final Config CONFIG = ConfigFactory.parseString("""
            pekko.actor.serialize-messages = on
            # Move workers to a new node within seconds, not the production 10 s.
            pekko.cluster.sharding.rebalance-interval = 1 s
            """).withFallback(SwarmNode.loadConfig(null));

    /** Three turns, each answered after 150 ms: calculator, calculator, answer. */
    static ScriptedPolicy policy() {
        return ScriptedPolicy.replies(
                "<tool_call>{\"name\": \"calculator\", \"arguments\": {\"expression\": \"6 * 7\"}}</tool_call>",
                "<tool_call>{\"name\": \"calculator\", \"arguments\": {\"expression\": \"40 + 2\"}}</tool_call>",
                "The answer is 42.").withLatency(Duration.ofMillis(150));
    }

    @Test
    void aNodeThatJoinsTakesWorkAndANodeThatLeavesLosesNothing() throws Exception {
        EpisodeSpec spec = EpisodeSpec.fromConfig(CONFIG.getConfig("agentswarm.episode")).withTools(List.of("calculator"));
        ScriptedPolicy first = policy();
        ScriptedPolicy leaving = policy();
        ScriptedPolicy joining = policy();
        List<BatchRunner.Job> jobs = new ArrayList<>();
        for (int i = 0; i < 1500; i++) jobs.add(new BatchRunner.Job("e" + i, "e" + i, Task.of("t" + i, "What is 6 * 7?"), spec));
        Map<String, Integer> answers = new ConcurrentHashMap<>();
        AtomicInteger answered = new AtomicInteger();
        try (SwarmNode a = SwarmNode.start(CONFIG, new EpisodeServices(first, EpisodeRuns.builtInTools()), null)) {
            SwarmNode b = SwarmNode.start(CONFIG, new EpisodeServices(leaving, EpisodeRuns.builtInTools()), a.address());
            SwarmNode c = null;
            try {
                a.awaitWorkers(2, Duration.ofSeconds(20));
                CompletableFuture<List<Trajectory>> run = CompletableFuture.supplyAsync(() -> {
                    try {
                        return EpisodeRuns.runAll(a, jobs, 150, t -> {
                            answers.merge(t.episodeId(), 1, Integer::sum);
                            answered.incrementAndGet();
                        });
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                awaitAnswered(answered, 150);
                c = SwarmNode.start(CONFIG, new EpisodeServices(joining, EpisodeRuns.builtInTools()), a.address());
                awaitAnswered(answered, 600);
                long beforeLeave = leaving.calls();
                assertTrue(beforeLeave > 0, "the leaving node worked before it left");
                b.close(); // graceful: leaves the cluster, its workers drain and move
                List<Trajectory> out = run.get(90, TimeUnit.SECONDS);
                assertEquals(1500, out.size());
                for (Trajectory t : out) {
                    assertEquals(StopReason.FINAL_ANSWER, t.stopReason(), t.episodeId() + ": " + t.error());
                }
                assertEquals(1500, answers.size());
                assertTrue(answers.values().stream().allMatch(n -> n == 1), "each episode answered once");
                assertTrue(joining.calls() > 0, "the node that joined mid-run took work: " + joining.calls() + " policy calls");
                assertEquals(1500L * 3, first.calls() + leaving.calls() + joining.calls(),
                        "no episode interrupted and run again: exactly three policy calls each");
            } finally {
                b.close();
                if (c != null) c.close();
            }
        }
    }

    private static void awaitAnswered(AtomicInteger answered, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (answered.get() < n && System.nanoTime() < deadline) Thread.sleep(20);
        assertTrue(answered.get() >= n, "only " + answered.get() + " answered");
    }
}
