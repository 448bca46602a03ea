package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.learner.sft.Checkpoints;
import dev.agentswarm.workers.EmbeddedPolicy;
import dev.agentswarm.workers.EpisodeServices;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The learner is a cluster singleton: a training job joins a cluster of a worker node and two
 * learner nodes, and is resumed from its checkpoint; mid-run the node holding the learner is
 * stopped. The singleton starts on the other learner node from the run's latest checkpoint, the
 * coordinator sends it the batches trained since, and the run goes on to its last step with every
 * step counted once and every accepted trajectory on disk.
 */
class LearnerFailoverTest {

    /** The tiny model on arithmetic, in two parts of a run: 2 steps checkpointed at the end, then more with no periodic checkpoint. */
    static Config config(Path runDir, String... roles) {
        return ConfigFactory.parseString("""
                pekko.actor.serialize-messages = on
                agentswarm.policy.embedded.model { preset = tiny, context = 1536 }
                agentswarm.episode { max-turns = 1, sampling.max-tokens = 12 }
                agentswarm.learner.grpo { num-generations = 2, learning-rate = 1e-3, dynamic-sampling = false }
                # No periodic checkpoint: the run's only one is the end of its first part, so the learner that takes
                # over comes back there, whenever the first learner's node goes.
                agentswarm.train { steps = 2, groups-per-step = 1, max-inflight = 4, checkpoint-every = 0, run-dir = "%s" }
                # The learner nodes open the runs in the test's folder.
                agentswarm.node.learner-runs-dir = "%s"
                """.formatted(runDir, runDir.getParent())).withFallback(SwarmNode.loadConfig(null))
                .withValue("pekko.cluster.roles", ConfigValueFactory.fromIterable(List.of(roles)));
    }

    @Test
    void theLearnersNodeStopsAndTrainingGoesOnFromTheLastCheckpointOnAnotherLearnerNode(@TempDir Path dir) throws Exception {
        Path run = dir.resolve("run");
        Config worker = config(run, "worker");
        List<SwarmNode> nodes = new ArrayList<>();
        try {
            SwarmNode workers = SwarmNode.start(worker, system -> new EpisodeServices(EmbeddedPolicy.spawn(system, worker),
                    EpisodeRuns.builtInTools(), dev.agentswarm.environments.SuiteCatalog.fromConfig(worker)), null);
            nodes.add(workers);
            SwarmNode first = SwarmNode.start(config(run, "learner"), system -> null, workers.address());
            nodes.add(first);
            first.awaitMembers(SwarmNode.LEARNER_ROLE, 1, java.time.Duration.ofSeconds(20));
            SwarmNode second = SwarmNode.start(config(run, "learner"), system -> null, workers.address());
            nodes.add(second);

            Training.run(config(run, "orchestrator"), null, workers.address()); // steps 1-2, checkpointed at the end
            CompletableFuture<Training.Outcome> training = CompletableFuture.supplyAsync(() -> {
                try {
                    Config more = config(run, "orchestrator").withValue("agentswarm.train.steps", ConfigValueFactory.fromAnyRef(14));
                    return Training.run(more, run, workers.address());
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            // Two updates past the checkpoint: the learner's node goes.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (steps(run) < 4 && System.nanoTime() < deadline && !training.isDone()) Thread.sleep(20);
            assertTrue(steps(run) >= 4 && steps(run) < 14, "stopped mid-run, at step " + steps(run));
            first.close();

            Training.Outcome o = training.get(180, TimeUnit.SECONDS);
            assertNull(o.summary().error());
            assertEquals(14, o.summary().steps(), "the step count went on to the end");
            assertTrue(o.summary().retrained() >= 2, "the batches after the checkpoint were trained again: " + o.summary().retrained());
            List<Long> steps = new ArrayList<>();
            for (String line : Files.readAllLines(run.resolve("metrics.jsonl"))) steps.add(Json.parse(line).get("step").asLong());
            assertEquals(java.util.stream.LongStream.rangeClosed(1, 14).boxed().toList(), steps, "each step once in the metrics");
            List<String> ids = new ArrayList<>();
            for (String line : Files.readAllLines(run.resolve("trajectories.jsonl"))) ids.add(Json.parse(line).get("episodeId").asText());
            assertTrue(ids.size() >= o.summary().episodes(), "every accepted trajectory is on disk");
            assertEquals(ids.size(), new HashSet<>(ids).size(), "each once");
            JsonNode state = Checkpoints.readJson(Checkpoints.latest(run).orElseThrow());
            assertEquals(14, state.get("step").asLong(), "the second learner wrote the last checkpoint");
        } finally {
            for (int i = nodes.size() - 1; i >= 0; i--) nodes.get(i).close();
        }
    }

    static long steps(Path run) throws java.io.IOException {
        Path metrics = run.resolve("metrics.jsonl");
        if (!Files.exists(metrics)) return 0;
        long n = 0;
        for (String line : Files.readAllLines(metrics)) {
            try {
                n = Math.max(n, Json.parse(line).get("step").asLong());
            } catch (java.io.IOException e) {
                // the line being written
            }
        }
        return n;
    }
}
