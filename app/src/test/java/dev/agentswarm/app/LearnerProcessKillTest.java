package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.workers.EmbeddedPolicy;
import dev.agentswarm.workers.EpisodeServices;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The learner singleton's process is killed with SIGKILL mid-run: after the cluster downs it, the
 * singleton starts in the other learner process from the run's latest checkpoint, is sent the
 * batches trained since, and the run reaches its last step with each step once.
 */
@org.junit.jupiter.api.extension.ExtendWith(org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension.class) // this JVM's log, if it fails
class LearnerProcessKillTest {

    @Test
    void theLearnersProcessIsKilledAndTrainingGoesOnInTheOtherLearnerProcess(@TempDir Path dir) throws Exception {
        Path run = dir.resolve("run");
        Config worker = LearnerFailoverTest.config(run, "worker");
        List<NodeProcess> learners = new ArrayList<>();
        try (SwarmNode workers = SwarmNode.start(worker, system -> new EpisodeServices(EmbeddedPolicy.spawn(system, worker),
                EpisodeRuns.builtInTools(), dev.agentswarm.environments.SuiteCatalog.fromConfig(worker)), null)) {
            List<String> jvm = List.of("-Xmx512m", "-XX:+UseSerialGC", "-Dai.djl.pytorch.num_threads=1");
            learners.add(NodeProcess.start(jvm, List.of("--roles", "learner", "--runs-dir", dir.toString(), "--seed", workers.address().toString()), null));
            learners.get(0).awaitUp(Duration.ofSeconds(90));
            workers.awaitMembers(SwarmNode.LEARNER_ROLE, 1, Duration.ofSeconds(30)); // the first is the oldest: it holds the singleton
            learners.add(NodeProcess.start(jvm, List.of("--roles", "learner", "--runs-dir", dir.toString(), "--seed", workers.address().toString()), null));
            learners.get(1).awaitUp(Duration.ofSeconds(90));
            workers.awaitMembers(SwarmNode.LEARNER_ROLE, 2, Duration.ofSeconds(30));

            Training.run(LearnerFailoverTest.config(run, "orchestrator"), null, workers.address()); // steps 1-2, checkpointed at the end
            CompletableFuture<Training.Outcome> training = CompletableFuture.supplyAsync(() -> {
                try {
                    return Training.run(LearnerFailoverTest.config(run, "orchestrator").withValue("agentswarm.train.steps", ConfigValueFactory.fromAnyRef(10)),
                            run, workers.address());
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (LearnerFailoverTest.steps(run) < 4 && System.nanoTime() < deadline && !training.isDone()) Thread.sleep(20);
            assertTrue(LearnerFailoverTest.steps(run) >= 4 && LearnerFailoverTest.steps(run) < 10, "killed mid-run");
            learners.get(0).kill();

            Training.Outcome o;
            try {
                o = training.get(180, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                // Say what the surviving learner did: its output is the only trace of a take-over that never came.
                List<String> said = learners.get(1).output();
                throw new AssertionError("the run did not finish within 180 s of the kill (" + LearnerFailoverTest.steps(run)
                        + " steps); the cluster as the workers' node sees it: " + membership(workers)
                        + "; the other learner's last output:\n"
                        + String.join("\n", said.subList(Math.max(0, said.size() - 60), said.size())), e);
            }
            assertNull(o.summary().error());
            assertEquals(10, o.summary().steps());
            assertTrue(o.summary().retrained() >= 2, "the batches after the checkpoint were trained again: " + o.summary().retrained());
            List<Long> steps = new ArrayList<>();
            for (String line : Files.readAllLines(run.resolve("metrics.jsonl"))) steps.add(Json.parse(line).get("step").asLong());
            assertEquals(java.util.stream.LongStream.rangeClosed(1, 10).boxed().toList(), steps, "each step once in the metrics");
            List<String> ids = new ArrayList<>();
            for (String line : Files.readAllLines(run.resolve("trajectories.jsonl"))) ids.add(Json.parse(line).get("episodeId").asText());
            assertEquals(ids.size(), new HashSet<>(ids).size(), "each trajectory once");
        } finally {
            for (NodeProcess l : learners) l.close();
        }
    }

    /** Each member with its roles and status, and who is unreachable: whether the killed node was downed and removed. */
    private static String membership(SwarmNode node) {
        var state = org.apache.pekko.cluster.typed.Cluster.get(node.system()).state();
        StringBuilder sb = new StringBuilder();
        for (var m : state.getMembers()) sb.append(m.address()).append(' ').append(m.getRoles()).append(' ').append(m.status()).append("; ");
        sb.append("unreachable: ").append(state.getUnreachable());
        return sb.toString();
    }
}
