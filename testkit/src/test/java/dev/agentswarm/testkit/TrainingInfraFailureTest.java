package dev.agentswarm.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.environment.TaskEnvironment;
import dev.agentswarm.core.environment.TaskEnvironments;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.json.MetricsLog;
import dev.agentswarm.core.policy.PolicyException;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.LearnerProtocol;
import dev.agentswarm.core.protocol.LearnerProtocol.BatchTrained;
import dev.agentswarm.core.protocol.LearnerProtocol.TrainBatch;
import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.ToolStatus;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.WorkerProtocol;
import dev.agentswarm.core.tool.FinishTool;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.core.tool.ToolRegistry;
import dev.agentswarm.environments.mcp.McpException;
import dev.agentswarm.orchestrator.GroupLedger;
import dev.agentswarm.orchestrator.RolloutCoordinator;
import dev.agentswarm.orchestrator.WorkerRoute;
import dev.agentswarm.sandbox.SandboxUnavailableException;
import dev.agentswarm.workers.EpisodeServices;
import dev.agentswarm.workers.RolloutWorker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.sharding.typed.ShardingEnvelope;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A training run through real workers and episodes whose first attempts fail under the policy, one
 * cause per task: policy server unreachable, sandbox down, MCP server down, scorer failing, episode
 * crashing. The learner gets only the answers of the attempts run again, in whole groups.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TrainingInfraFailureTest {

    private final ActorTestKit kit = ActorTestKit.create("training-infra", ConfigFactory.parseString("""
            agentswarm.worker { policy-retries = 1, policy-retry-backoff = 5 ms }
            """).withFallback(EpisodeHarness.TEST_CONFIG));
    private static final List<Task> TASKS = List.of(Task.of("unreachable", "a"), Task.of("sandbox", "b"), Task.of("mcp", "c"),
            Task.of("scorer", "d"), Task.of("crash", "e"));

    @AfterAll
    void stop() {
        kit.shutdownTestKit();
    }

    private static boolean firstAttempt(String episodeId) {
        return !episodeId.contains("-retry");
    }

    private static String call(String tool) {
        return "<tool_call>\n{\"name\": \"" + tool + "\", \"arguments\": {}}\n</tool_call>";
    }

    /** First attempts fail as their task says; the attempts run again answer, slot 0 right and slot 1 wrong. */
    private static final ScriptedPolicy POLICY = ScriptedPolicy.completions(req -> {
        String task = req.messages().get(1).content();
        if (firstAttempt(req.episodeId()) && req.turn() == 1) {
            switch (task) {
                case "a" -> throw new PolicyException("connection refused: http://127.0.0.1:1/v1", true);
                case "b" -> {
                    return Completion.ofText(call("run_code"), 10, 5);
                }
                case "c" -> {
                    return Completion.ofText(call("search"), 10, 5);
                }
                case "e" -> throw new AssertionError("a bug in the episode's code, on purpose");
                default -> { }
            }
        }
        return Completion.ofText(req.episodeId().contains("#0") ? "The answer is 42" : "The answer is 41", 10, 5);
    });

    /** Every task's environment: a sandbox and an MCP server that are down, and a scorer failing on first attempts of task d. */
    private static final TaskEnvironments ENVIRONMENTS = (task, episodeId) -> Optional.of(new TaskEnvironment() {
        @Override
        public List<Tool> tools() {
            return List.of(FakeTool.named("run_code", a -> {
                throw new SandboxUnavailableException("bubblewrap cannot create its namespaces here");
            }), FakeTool.named("search", a -> {
                throw new McpException("MCP server 'web' exited with code 1 during tools/call 'search'", ToolStatus.SERVER_DOWN);
            }));
        }

        @Override
        public RewardBreakdown score(Trajectory t) {
            if (task.id().equals("scorer") && firstAttempt(episodeId)) throw new IllegalStateException("the grader's database is down");
            double r = "The answer is 42".equals(t.finalAnswer()) ? 1 : 0;
            return new RewardBreakdown(Map.of("correct", r), r);
        }

        @Override
        public void close() {}
    });

    @Test
    void theLearnerGetsOnlyTheAttemptsRunAgainAndEveryCauseIsKeptOnDisk(@TempDir Path dir) throws Exception {
        EpisodeServices services = new EpisodeServices(POLICY, ToolRegistry.of(new FinishTool()), ENVIRONMENTS);
        ActorRef<WorkerProtocol.Command> worker = kit.spawn(RolloutWorker.create(services, 1000));
        ActorRef<ShardingEnvelope<WorkerProtocol.Command>> region = kit.spawn(Behaviors.<ShardingEnvelope<WorkerProtocol.Command>>receiveMessage(e -> {
            worker.tell(e.message());
            return Behaviors.same();
        }));
        List<TrainBatch> seen = Collections.synchronizedList(new ArrayList<>());
        ActorRef<LearnerProtocol.Command> learner = kit.spawn(Behaviors.<LearnerProtocol.Command>receiveMessage(msg -> {
            TrainBatch b = (TrainBatch) msg;
            seen.add(b);
            b.replyTo().tell(new BatchTrained(b.batchId(), seen.size(), seen.size(), true, Map.of("loss", 0.5), null));
            return Behaviors.same();
        }));
        EpisodeSpec spec = EpisodeSpec.fromConfig(kit.system().settings().config().getConfig("agentswarm.episode"))
                .withTools(List.of("finish"));
        Path trajectories = dir.resolve("trajectories.jsonl");
        CompletableFuture<RolloutCoordinator.Summary> done = new CompletableFuture<>();
        try (MetricsLog t = MetricsLog.appendOnly(trajectories); MetricsLog m = MetricsLog.open(dir.resolve("metrics.jsonl"), 0)) {
            kit.spawn(RolloutCoordinator.create(new RolloutCoordinator.Settings(2, 10, 5, 5, 1, false, Duration.ofSeconds(30),
                    GroupLedger.DynamicSampling.OFF, Duration.ofSeconds(10), 1), TASKS, 0, spec,
                    new RolloutCoordinator.Wiring(WorkerRoute.sharded(region, 8), learner), 0, 0, t, m, x -> {}, done));
            RolloutCoordinator.Summary s = done.get(60, TimeUnit.SECONDS);
            assertNull(s.error());
            assertEquals(1, s.steps());
        }

        assertEquals(1, seen.size());
        assertEquals(5, seen.get(0).groups().size(), "every task's group, complete");
        for (List<Trajectory> g : seen.get(0).groups()) {
            assertEquals(2, g.size());
            for (Trajectory tr : g) {
                assertNull(tr.infraFailure(), "the learner saw a failed attempt: " + tr);
                assertTrue(tr.episodeId().endsWith("-retry1"), tr.episodeId());
                assertEquals(tr.episodeId().contains("#0") ? 1.0 : 0.0, tr.reward().total(), tr.toString());
            }
        }
        Set<String> causes = new TreeSet<>();
        for (String line : Files.readAllLines(trajectories)) {
            JsonNode j = Json.parse(line);
            if (j.has("infra")) causes.add(j.get("infra").asText());
            else if (j.get("stopReason").asText().equals("CRASHED")) causes.add("CRASHED");
        }
        assertEquals(new TreeSet<>(List.of("CRASHED", "MCP_SERVER_DOWN", "POLICY_UNAVAILABLE", "SANDBOX_UNAVAILABLE", "SCORER_FAILED")),
                causes, "each failed first attempt is on disk with its cause");
        JsonNode metrics = Json.parse(Files.readAllLines(dir.resolve("metrics.jsonl")).get(0));
        // The first round's ten first attempts at least (the next round's may have begun failing too).
        assertTrue(metrics.get("infra_retried").asLong() >= 10, metrics.toString());
        for (String c : List.of("policy_unavailable", "sandbox_unavailable", "mcp_server_down", "scorer_failed", "crashed")) {
            assertTrue(metrics.get("infra_retried_" + c).asLong() >= 2, c + " in " + metrics);
        }
        assertEquals(0, metrics.get("groups_dropped_infra").asLong());
    }
}
