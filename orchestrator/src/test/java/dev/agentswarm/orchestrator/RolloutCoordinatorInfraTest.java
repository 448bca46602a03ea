package dev.agentswarm.orchestrator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.json.MetricsLog;
import dev.agentswarm.core.metrics.NodeMetrics;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.InfraFailure;
import dev.agentswarm.core.protocol.LearnerProtocol;
import dev.agentswarm.core.protocol.LearnerProtocol.BatchTrained;
import dev.agentswarm.core.protocol.LearnerProtocol.TrainBatch;
import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.WorkerProtocol;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
 * A training run whose workers fail under the policy, every cause in turn: the learner never sees a
 * failed attempt, a group still failing after its retries is dropped whole, and both are counted.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RolloutCoordinatorInfraTest {

    private final ActorTestKit kit = ActorTestKit.create("coordinator-infra");
    private static final List<Task> TASKS = List.of(Task.of("t0", "a"), Task.of("t1", "b"), Task.of("t2", "c"), Task.of("broken", "d"));
    private static final EpisodeSpec SPEC = EpisodeSpec.fromConfig(ConfigFactory.load().getConfig("agentswarm.episode"));
    private static final InfraFailure[] CAUSES = InfraFailure.values();

    @AfterAll
    void stop() {
        kit.shutdownTestKit();
    }

    /**
     * Workers whose first attempt of every episode fails (each cause in turn), and whose every attempt at
     * the task {@code broken} fails as its sandbox is down; a retry of the others answers, rewarded 0 or 1.
     */
    private static Behavior<ShardingEnvelope<WorkerProtocol.Command>> workers(AtomicInteger failures, Set<String> cancelled) {
        return Behaviors.receiveMessage(env -> {
            if (env.message() instanceof WorkerProtocol.CancelEpisode c) cancelled.add(c.episodeId());
            if (!(env.message() instanceof WorkerProtocol.RunEpisode r)) return Behaviors.same();
            CompletableFuture.runAsync(() -> {
                Trajectory t;
                if (r.task().id().equals("broken")) {
                    t = GroupLedgerTest.failed(r.episodeId(), InfraFailure.SANDBOX_UNAVAILABLE);
                } else if (!r.episodeId().contains("-retry")) {
                    InfraFailure cause = CAUSES[failures.getAndIncrement() % CAUSES.length];
                    t = cause == InfraFailure.CRASHED
                            ? Trajectory.notRun(r.episodeId(), r.groupId(), r.task().id(), StopReason.CRASHED, "its actor failed")
                            : GroupLedgerTest.failed(r.episodeId(), cause);
                } else {
                    double reward = r.episodeId().hashCode() % 2 == 0 ? 1 : 0;
                    t = GroupLedgerTest.answer(r.episodeId(), 0).withReward(new RewardBreakdown(Map.of("correct", reward), reward));
                }
                r.replyTo().tell(t);
            }, CompletableFuture.delayedExecutor(3, TimeUnit.MILLISECONDS));
            return Behaviors.same();
        });
    }

    @Test
    void aRunWhoseEveryEpisodeFailsForItsInfrastructureEndsWithWhyInsteadOfSamplingForever(@TempDir Path dir) throws Exception {
        Path trajectories = dir.resolve("trajectories.jsonl");
        List<TrainBatch> seen = Collections.synchronizedList(new ArrayList<>());
        CompletableFuture<RolloutCoordinator.Summary> done = new CompletableFuture<>();
        Behavior<ShardingEnvelope<WorkerProtocol.Command>> down = Behaviors.receiveMessage(env -> {
            if (env.message() instanceof WorkerProtocol.RunEpisode r) {
                r.replyTo().tell(GroupLedgerTest.failed(r.episodeId(), InfraFailure.POLICY_UNAVAILABLE));
            }
            return Behaviors.same();
        });
        try (MetricsLog t = MetricsLog.appendOnly(trajectories); MetricsLog m = MetricsLog.open(dir.resolve("metrics.jsonl"), 0)) {
            kit.spawn(RolloutCoordinator.create(new RolloutCoordinator.Settings(2, 8, 1, 5, 3, false, Duration.ofSeconds(30),
                    GroupLedger.DynamicSampling.OFF, Duration.ofSeconds(10), 1), TASKS, 0, SPEC,
                    new RolloutCoordinator.Wiring(WorkerRoute.sharded(kit.spawn(down), 8), kit.spawn(learner(seen))), 0, 0, t, m, x -> {},
                    done));
            RolloutCoordinator.Summary s = done.get(30, TimeUnit.SECONDS);
            assertEquals(0, s.steps());
            assertTrue(s.error() != null && s.error().contains(RolloutCoordinator.MAX_GROUPS_DROPPED_IN_A_ROW + " groups in a row were dropped")
                    && s.error().contains("policy_unavailable") && s.error().contains("injected"), String.valueOf(s.error()));
        }
        assertTrue(seen.isEmpty(), "nothing reached the learner");
    }

    private static Behavior<LearnerProtocol.Command> learner(List<TrainBatch> seen) {
        AtomicInteger version = new AtomicInteger();
        return Behaviors.receiveMessage(msg -> {
            TrainBatch b = (TrainBatch) msg;
            seen.add(b);
            int v = version.incrementAndGet();
            b.replyTo().tell(new BatchTrained(b.batchId(), v, v, true, Map.of("loss", 0.5), null));
            return Behaviors.same();
        });
    }

    @Test
    void theLearnerNeverSeesAFailedAttemptAndAGroupStillFailingIsDroppedWhole(@TempDir Path dir) throws Exception {
        Path trajectories = dir.resolve("trajectories.jsonl");
        Files.createFile(trajectories);
        AtomicInteger failures = new AtomicInteger();
        Set<String> cancelled = Collections.synchronizedSet(new HashSet<>());
        List<TrainBatch> seen = Collections.synchronizedList(new ArrayList<>());
        CompletableFuture<RolloutCoordinator.Summary> done = new CompletableFuture<>();
        RolloutCoordinator.Settings settings = new RolloutCoordinator.Settings(2, 8, 1, 5, 6, false, Duration.ofSeconds(30),
                GroupLedger.DynamicSampling.OFF, Duration.ofSeconds(10), 2);
        RolloutCoordinator.Summary s;
        try (MetricsLog t = MetricsLog.appendOnly(trajectories); MetricsLog m = MetricsLog.open(dir.resolve("metrics.jsonl"), 0)) {
            ActorRef<ShardingEnvelope<WorkerProtocol.Command>> region = kit.spawn(workers(failures, cancelled));
            kit.spawn(RolloutCoordinator.create(settings, TASKS, 0, SPEC, new RolloutCoordinator.Wiring(WorkerRoute.sharded(region, 8),
                    kit.spawn(learner(seen))), 0, 0, t, m, x -> {}, done));
            s = done.get(30, TimeUnit.SECONDS);
        }
        assertNull(s.error());
        assertEquals(6, s.steps());
        assertTrue(s.infraRetried() >= 12 && s.groupsDroppedInfra() >= 1, s.toString());

        Set<InfraFailure> injected = EnumSet.noneOf(InfraFailure.class);
        for (int i = 0; i < Math.min(failures.get(), CAUSES.length); i++) injected.add(CAUSES[i]);
        assertEquals(EnumSet.allOf(InfraFailure.class), injected, "every cause was injected");
        for (TrainBatch b : seen) {
            for (List<Trajectory> g : b.groups()) {
                assertEquals(2, g.size(), "whole groups only");
                for (Trajectory tr : g) {
                    assertNull(tr.infraFailure(), "the learner saw a failed attempt: " + tr);
                    assertTrue(tr.episodeId().endsWith("-retry1"), "the answer of the new attempt, not the failed one: " + tr.episodeId());
                    assertTrue(!tr.taskId().equals("broken") && tr.reward() != null, tr.toString());
                }
            }
        }

        // Every answer is on disk, failed attempts too, with their cause.
        List<String> lines = Files.readAllLines(trajectories);
        assertEquals(s.episodes(), lines.size());
        long failedOnDisk = lines.stream().filter(l -> l.contains("\"infra\"") || l.contains("\"CRASHED\"")).count();
        assertTrue(failedOnDisk > 0);

        JsonNode last = Json.parse(Files.readAllLines(dir.resolve("metrics.jsonl")).get(5));
        assertTrue(last.get("infra_retried").asLong() >= 12, "each of the six steps' groups had two failed first attempts: " + last);
        assertTrue(last.get("infra_retried_policy_unavailable").asLong() >= 1, last.toString());
        assertTrue(last.get("groups_dropped_infra").asLong() >= 1, "the broken task's groups: " + last);
        assertEquals(last.get("groups_dropped_infra").asLong(), last.get("groups_dropped_infra_sandbox_unavailable").asLong());
        double dropped = NodeMetrics.get(kit.system()).registry().get(InfraMeters.DROPPED).tag("cause", "sandbox_unavailable")
                .counter().count();
        assertTrue(dropped >= 1, "/metrics counts the dropped groups by cause too");
        assertTrue(NodeMetrics.get(kit.system()).registry().get(InfraMeters.RETRIED).tag("cause", "scorer_failed").counter().count() >= 1);
    }
}
