package dev.agentswarm.orchestrator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.json.MetricsLog;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.LearnerProtocol;
import dev.agentswarm.core.protocol.LearnerProtocol.BatchTrained;
import dev.agentswarm.core.protocol.LearnerProtocol.TrainBatch;
import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.WorkerProtocol;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.sharding.typed.ShardingEnvelope;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The coordinator against fake workers (answering after a delay, with the version they serve) and
 * a fake learner (each batch one version up): bounds, batches, staleness, durability, sync, re-sends.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RolloutCoordinatorTest {

    private final ActorTestKit kit = ActorTestKit.create("coordinator");
    private static final List<Task> TASKS = List.of(Task.of("t0", "a"), Task.of("t1", "b"), Task.of("t2", "c"), Task.of("t3", "d"));
    private static final EpisodeSpec SPEC = EpisodeSpec.fromConfig(ConfigFactory.load().getConfig("agentswarm.episode"));

    @AfterAll
    void stop() {
        kit.shutdownTestKit();
    }

    /** What the fakes saw. */
    static final class World {
        final AtomicLong served = new AtomicLong();
        final AtomicInteger inflight = new AtomicInteger();
        final AtomicInteger maxInflight = new AtomicInteger();
        final AtomicBoolean training = new AtomicBoolean();
        final AtomicInteger launchedWhileTraining = new AtomicInteger();
        final Set<String> dropOnce = ConcurrentHashMap.newKeySet();
        final Set<String> uniformTasks = ConcurrentHashMap.newKeySet(); // every episode of these scores 0: no spread

        final AtomicInteger requests = new AtomicInteger();
        final AtomicLong stepsSeen = new AtomicLong();
        final AtomicInteger untrainable = new AtomicInteger(); // batches the learner answers with no update
        final List<TrainBatch> batches = new ArrayList<>();
        final List<String> violations = new ArrayList<>();
        long version;
    }

    private static Behavior<ShardingEnvelope<WorkerProtocol.Command>> workers(World w, long delayMs) {
        return Behaviors.receiveMessage(env -> {
            if (env.message() instanceof WorkerProtocol.RunEpisode r) {
                w.requests.incrementAndGet();
                if (w.training.get()) w.launchedWhileTraining.incrementAndGet();
                if (w.dropOnce.remove(r.episodeId())) return Behaviors.same(); // lost with its node
                w.maxInflight.accumulateAndGet(w.inflight.incrementAndGet(), Math::max);
                long sampledWith = w.served.get();
                int k = r.episodeId().charAt(r.episodeId().length() - 1) - '0';
                CompletableFuture.runAsync(() -> {
                    w.inflight.decrementAndGet();
                    double reward = w.uniformTasks.contains(r.task().id()) ? 0 : k % 2;
                    Trajectory t = GroupLedgerTest.answer(r.episodeId(), sampledWith)
                            .withReward(new RewardBreakdown(Map.of("correct", reward), reward));
                    r.replyTo().tell(t);
                }, CompletableFuture.delayedExecutor(delayMs, TimeUnit.MILLISECONDS));
            }
            return Behaviors.same();
        });
    }

    private static Behavior<LearnerProtocol.Command> learner(World w, Path trajectories, int maxStaleness, long trainMs) {
        return Behaviors.receiveMessage(msg -> {
            TrainBatch b = (TrainBatch) msg;
            w.training.set(true);
            synchronized (w) {
                w.batches.add(b);
                Set<String> written = new HashSet<>();
                List<String> lines = Files.readAllLines(trajectories);
                for (int i = 0; i < lines.size(); i++) {
                    try {
                        written.add(Json.parse(lines.get(i)).get("episodeId").asText());
                    } catch (java.io.IOException e) {
                        // The coordinator goes on appending while this reads: only the last line may be half there.
                        if (i < lines.size() - 1) throw e;
                    }
                }
                for (List<Trajectory> g : b.groups()) {
                    if (GroupLedger.staleness(g, w.version) > maxStaleness) w.violations.add("stale group " + g.get(0).groupId());
                    for (Trajectory t : g) if (!written.contains(t.episodeId())) w.violations.add("not yet written: " + t.episodeId());
                }
            }
            if (w.untrainable.getAndUpdate(n -> Math.max(0, n - 1)) > 0) { // every group dropped: nothing changes
                long v = w.version;
                w.training.set(false);
                b.replyTo().tell(new BatchTrained(b.batchId(), v, v, false, Map.of("groups_dropped", 2.0), null));
                return Behaviors.same();
            }
            CompletableFuture.runAsync(() -> {
                long v;
                synchronized (w) {
                    v = ++w.version;
                }
                w.served.set(v); // the servers swap right away
                w.training.set(false);
                b.replyTo().tell(new BatchTrained(b.batchId(), v, v, true, Map.of("loss", 0.5), null));
            }, CompletableFuture.delayedExecutor(trainMs, TimeUnit.MILLISECONDS));
            return Behaviors.same();
        });
    }

    private RolloutCoordinator.Summary run(World w, RolloutCoordinator.Settings s, Path dir, long workerMs, long trainMs) throws Exception {
        Path trajectories = dir.resolve("trajectories.jsonl");
        Files.createFile(trajectories);
        CompletableFuture<RolloutCoordinator.Summary> done = new CompletableFuture<>();
        try (MetricsLog t = MetricsLog.appendOnly(trajectories); MetricsLog m = MetricsLog.open(dir.resolve("metrics.jsonl"), 0)) {
            ActorRef<ShardingEnvelope<WorkerProtocol.Command>> region = kit.spawn(workers(w, workerMs));
            ActorRef<LearnerProtocol.Command> learner = kit.spawn(learner(w, trajectories, s.maxStaleness(), trainMs));
            kit.spawn(RolloutCoordinator.create(s, TASKS, 0, SPEC, new RolloutCoordinator.Wiring(WorkerRoute.sharded(region, 8), learner), 0, 0, t, m, w.stepsSeen::set,
                    done));
            return done.get(60, TimeUnit.SECONDS);
        }
    }

    @Test
    void asyncRunsKeepTheBoundTrainInBatchesOfWholeFreshGroupsAndWriteEverythingFirst(@TempDir Path dir) throws Exception {
        World w = new World();
        RolloutCoordinator.Summary s = run(w, new RolloutCoordinator.Settings(4, 8, 2, 1, 5, false, Duration.ofSeconds(30)), dir, 20, 30);
        assertNull(s.error());
        assertEquals(5, s.steps());
        assertEquals(5, s.version());
        assertEquals(5, w.stepsSeen.get(), "progress is reported per update");
        assertEquals(1, s.firstStep());
        assertEquals(0.5, s.last().get("loss"));
        assertTrue(w.maxInflight.get() <= 8, "in flight at most 8, saw " + w.maxInflight.get());
        assertTrue(w.launchedWhileTraining.get() > 0, "generation goes on while the learner trains");
        assertEquals(List.of(), w.violations);
        for (TrainBatch b : w.batches) {
            assertEquals(2, b.groups().size());
            for (List<Trajectory> g : b.groups()) {
                assertEquals(4, g.size());
                assertEquals(1, g.stream().map(Trajectory::groupId).distinct().count());
            }
        }
        assertEquals(s.episodes(), Files.readAllLines(dir.resolve("trajectories.jsonl")).size(), "every accepted answer is on disk");
        List<String> metrics = Files.readAllLines(dir.resolve("metrics.jsonl"));
        assertEquals(5, metrics.size());
        JsonNode last = Json.parse(metrics.get(4));
        assertEquals(5, last.get("step").asLong());
        assertEquals(0.5, last.get("loss").asDouble());
        assertTrue(last.get("trajectories_sync_ms").asDouble() > 0, "each batch's trajectories were forced to the disk first: " + last);
    }

    @Test
    void onlyBatchesTheLearnerTrainedOnCountAsSteps(@TempDir Path dir) throws Exception {
        World w = new World();
        w.untrainable.set(2);
        RolloutCoordinator.Summary s = run(w, new RolloutCoordinator.Settings(2, 8, 1, 5, 3, false, Duration.ofSeconds(30)), dir, 5, 5);
        assertEquals(3, s.steps(), "three real updates, not three batches");
        assertEquals(3, s.version());
        assertEquals(5, w.batches.size());
        List<String> lines = Files.readAllLines(dir.resolve("metrics.jsonl"));
        assertEquals(5, lines.size());
        assertEquals(0, Json.parse(lines.get(1)).get("step").asLong(), "no update yet: the lines say so");
        assertEquals(false, Json.parse(lines.get(1)).get("published").asBoolean());
        assertEquals(List.of(1L, 2L, 3L), lines.subList(2, 5).stream().map(l -> {
            try {
                return Json.parse(l).get("step").asLong();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }).toList());
        assertEquals(3, w.stepsSeen.get());
    }

    @Test
    void batchAfterBatchWithNothingToTrainOnEndsTheRunWithWhyInsteadOfSamplingForever(@TempDir Path dir) throws Exception {
        World w = new World();
        w.untrainable.set(1_000_000);
        RolloutCoordinator.Summary s = run(w, new RolloutCoordinator.Settings(2, 8, 1, 5, 3, false, Duration.ofSeconds(30)), dir, 5, 5);
        assertEquals(0, s.steps());
        assertTrue(s.error() != null && s.error().contains(RolloutCoordinator.MAX_BATCHES_WITHOUT_UPDATE
                + " batches in a row gave the learner nothing to train on"), String.valueOf(s.error()));
        assertEquals(RolloutCoordinator.MAX_BATCHES_WITHOUT_UPDATE, w.batches.size());
    }

    @Test
    void aLearnerThatDiesEndsTheRunWithWhyInsteadOfHangingIt(@TempDir Path dir) throws Exception {
        Path trajectories = dir.resolve("trajectories.jsonl");
        CompletableFuture<RolloutCoordinator.Summary> done = new CompletableFuture<>();
        World w = new World();
        try (MetricsLog t = MetricsLog.appendOnly(trajectories); MetricsLog m = MetricsLog.open(dir.resolve("metrics.jsonl"), 0)) {
            ActorRef<LearnerProtocol.Command> dying = kit.spawn(Behaviors.receiveMessage(msg -> {
                throw new IllegalStateException("the engine crashed");
            }));
            kit.spawn(RolloutCoordinator.create(new RolloutCoordinator.Settings(2, 4, 1, 1, 3, false, Duration.ofSeconds(30)), TASKS, 0,
                    SPEC, new RolloutCoordinator.Wiring(WorkerRoute.sharded(kit.spawn(workers(w, 5)), 8), dying), 0, 0, t, m, x -> {}, done));
            RolloutCoordinator.Summary s = done.get(30, TimeUnit.SECONDS);
            assertTrue(s.error().contains("the learner stopped"), s.error());
            assertEquals(0, s.steps());
        }
    }

    @Test
    void groupsSampledTooLongAgoAreDroppedNotTrained(@TempDir Path dir) throws Exception {
        World w = new World();
        // Six groups in flight, one per update, and max-staleness 0: whatever was out during an update is stale.
        RolloutCoordinator.Summary s = run(w, new RolloutCoordinator.Settings(2, 12, 1, 0, 4, false, Duration.ofSeconds(30)), dir, 40, 5);
        assertEquals(4, s.steps());
        assertTrue(s.staleDropped() > 0, "some groups came back too old");
        assertEquals(List.of(), w.violations, "none of them reached the learner");
    }

    @Test
    void syncModeNeverSamplesWhileTheLearnerTrains(@TempDir Path dir) throws Exception {
        World w = new World();
        RolloutCoordinator.Summary s = run(w, new RolloutCoordinator.Settings(4, 16, 2, 0, 3, true, Duration.ofSeconds(30)), dir, 10, 40);
        assertEquals(3, s.steps());
        assertEquals(0, w.launchedWhileTraining.get());
        assertEquals(0, s.staleDropped(), "in lockstep nothing goes stale");
        assertEquals(3 * 2 * 4, w.requests.get(), "exactly one batch's groups per round");
    }

    @Test
    void dynamicSamplingRefillsSyncBatchesWithInformativeGroupsOnly(@TempDir Path dir) throws Exception {
        World w = new World();
        w.uniformTasks.add("t1"); // a task the policy always gets wrong: its groups teach nothing
        RolloutCoordinator.Summary s = run(w, new RolloutCoordinator.Settings(2, 16, 2, 0, 3, true, Duration.ofSeconds(30),
                new GroupLedger.DynamicSampling(true, 0), RolloutCoordinator.Settings.DEFAULT_ACK_TIMEOUT), dir, 10, 40);
        assertEquals(3, s.steps());
        assertEquals(0, w.launchedWhileTraining.get(), "refills are sampled before the update, never during it");
        for (TrainBatch b : w.batches) {
            assertEquals(2, b.groups().size(), "every batch full");
            for (List<Trajectory> g : b.groups()) {
                assertTrue(!g.get(0).groupId().endsWith("-t1"), "no uninformative group reaches the learner: " + g.get(0).groupId());
            }
        }
        long dropped = 0;
        for (String line : Files.readAllLines(dir.resolve("metrics.jsonl"))) dropped = Json.parse(line).get("uninformative_dropped").asLong();
        assertEquals(2, dropped, "t0 t1 (+t2) | t3 t0 | t1 t2 (+t3): t1 twice, each refilled by the next task");
        assertEquals((3 * 2 + dropped) * 2, w.requests.get(), "each dropped group was replaced by exactly one more");
    }

    @Test
    void anEpisodeLostWithItsNodeIsSentAgain(@TempDir Path dir) throws Exception {
        World w = new World();
        w.dropOnce.add("g0-t0#1");
        RolloutCoordinator.Summary s = run(w, new RolloutCoordinator.Settings(2, 2, 1, 5, 2, false, Duration.ofMillis(400)), dir, 10, 10); // one group at a time: nothing moves until the re-send
        assertEquals(2, s.steps());
        assertTrue(s.resent() >= 1);
        List<String> ids = new ArrayList<>();
        for (String line : Files.readAllLines(dir.resolve("trajectories.jsonl"))) ids.add(Json.parse(line).get("episodeId").asText());
        assertTrue(ids.contains("g0-t0#1"), "answered after the re-send");
        assertEquals(ids.size(), new HashSet<>(ids).size(), "each episode written once");
    }

    @Test
    void episodesOfANodeThatLeavesTheClusterAreSentAgainAtOnceNotAfterTheTimeout(@TempDir Path dir) throws Exception {
        World w = new World();
        Map<String, Integer> requests = new ConcurrentHashMap<>();
        // Odd episodes go to a node that dies with them: accepted there, never answered.
        Behavior<ShardingEnvelope<WorkerProtocol.Command>> workers = Behaviors.receiveMessage(env -> {
            if (env.message() instanceof WorkerProtocol.RunEpisode r) {
                int n = requests.merge(r.episodeId(), 1, Integer::sum);
                boolean dies = n == 1 && r.episodeId().endsWith("#1");
                r.receipts().tell(new WorkerProtocol.Accepted(r.episodeId(), dies ? "pekko://swarm@h:1" : "pekko://swarm@h:2"));
                if (!dies) r.replyTo().tell(GroupLedgerTest.answer(r.episodeId(), 0));
            }
            return Behaviors.same();
        });
        Path trajectories = dir.resolve("trajectories.jsonl");
        CompletableFuture<RolloutCoordinator.Summary> done = new CompletableFuture<>();
        try (MetricsLog t = MetricsLog.appendOnly(trajectories); MetricsLog m = MetricsLog.open(dir.resolve("metrics.jsonl"), 0)) {
            ActorRef<LearnerProtocol.Command> learner = kit.spawn(learner(w, trajectories, 5, 1));
            // Episode and ack timeouts far beyond the test: only the node's removal can bring the odd episodes back.
            ActorRef<RolloutCoordinator.Command> coordinator = kit.spawn(RolloutCoordinator.create(
                    new RolloutCoordinator.Settings(2, 8, 2, 5, 2, false, Duration.ofMinutes(10), GroupLedger.DynamicSampling.OFF,
                            Duration.ofMinutes(10)),
                    TASKS, 0, SPEC, new RolloutCoordinator.Wiring(WorkerRoute.sharded(kit.spawn(workers), 8), learner), 0, 0, t, m,
                    w.stepsSeen::set, done));
            Thread.sleep(300);
            assertTrue(!done.isDone() && w.batches.isEmpty(), "no group completes while its odd episode is held by the dead node");
            coordinator.tell(new RolloutCoordinator.NodeRemoved("pekko://swarm@h:2")); // a node that ran only answered episodes
            Thread.sleep(200);
            assertTrue(requests.values().stream().allMatch(n -> n == 1), "nothing re-sent for a node that held no open episode");
            coordinator.tell(new RolloutCoordinator.NodeRemoved("pekko://swarm@h:1"));
            RolloutCoordinator.Summary s = done.get(10, TimeUnit.SECONDS);
            assertEquals(2, s.steps());
            assertTrue(s.resent() >= 4, "the four odd episodes out were sent again: " + s.resent());
        }
        List<String> metrics = Files.readAllLines(dir.resolve("metrics.jsonl"));
        JsonNode last = Json.parse(metrics.get(metrics.size() - 1));
        assertTrue(last.get("infra_retried_node_lost").asLong() >= 4, "counted as retries for a lost node: " + last);
        assertEquals(last.get("infra_retried").asLong(), last.get("infra_retried_node_lost").asLong());
        List<String> ids = new ArrayList<>();
        for (String line : Files.readAllLines(trajectories)) ids.add(Json.parse(line).get("episodeId").asText());
        assertEquals(ids.size(), new HashSet<>(ids).size(), "each episode written once");
    }

    /**
     * The learner's node goes while it holds a batch, and the copy sent at the removal is lost too (it went to
     * the old singleton's address before the proxy saw the removal): the batch goes again every ack-timeout until
     * the learner that took over answers, instead of the run waiting forever.
     */
    @Test
    void aBatchLostWithTheLearnersNodeGoesAgainUntilTheNewLearnerAnswers(@TempDir Path dir) throws Exception {
        World w = new World();
        Map<Long, Integer> arrivals = new ConcurrentHashMap<>();
        Behavior<ShardingEnvelope<WorkerProtocol.Command>> workers = Behaviors.receiveMessage(env -> {
            if (env.message() instanceof WorkerProtocol.RunEpisode r) {
                r.receipts().tell(new WorkerProtocol.Accepted(r.episodeId(), "pekko://swarm@h:2"));
                int k = r.episodeId().charAt(r.episodeId().length() - 1) - '0';
                r.replyTo().tell(GroupLedgerTest.answer(r.episodeId(), 0).withReward(new RewardBreakdown(Map.of("correct", (double) (k % 2)), k % 2)));
            }
            return Behaviors.same();
        });
        Behavior<LearnerProtocol.Command> learner = Behaviors.receiveMessage(msg -> {
            TrainBatch b = (TrainBatch) msg;
            int n = arrivals.merge(b.batchId(), 1, Integer::sum);
            if (arrivals.size() == 1 && n <= 2) return Behaviors.same(); // the first batch, and its copy at the removal: lost
            long v;
            synchronized (w) {
                v = ++w.version;
            }
            b.replyTo().tell(new BatchTrained(b.batchId(), v, v, true, Map.of("loss", 0.5), null));
            return Behaviors.same();
        });
        Path trajectories = dir.resolve("trajectories.jsonl");
        CompletableFuture<RolloutCoordinator.Summary> done = new CompletableFuture<>();
        try (MetricsLog t = MetricsLog.appendOnly(trajectories); MetricsLog m = MetricsLog.open(dir.resolve("metrics.jsonl"), 0)) {
            ActorRef<RolloutCoordinator.Command> coordinator = kit.spawn(RolloutCoordinator.create(
                    new RolloutCoordinator.Settings(2, 8, 2, 5, 2, false, Duration.ofMinutes(10), GroupLedger.DynamicSampling.OFF,
                            Duration.ofMillis(300)),
                    TASKS, 0, SPEC, new RolloutCoordinator.Wiring(WorkerRoute.sharded(kit.spawn(workers), 8), kit.spawn(learner)), 0, 0, t, m,
                    w.stepsSeen::set, done));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (arrivals.isEmpty() && System.nanoTime() < deadline) Thread.sleep(10);
            assertEquals(1, arrivals.size(), "the first batch reached the learner");
            coordinator.tell(new RolloutCoordinator.NodeRemoved("pekko://swarm@h:9"));
            RolloutCoordinator.Summary s = done.get(10, TimeUnit.SECONDS);
            assertEquals(2, s.steps());
            assertEquals(3, arrivals.values().iterator().next(), "sent, sent at the removal, sent again an ack-timeout later");
        }
    }
}
