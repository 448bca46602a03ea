package dev.agentswarm.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.policy.PolicyException;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.WorkerProtocol;
import dev.agentswarm.core.tool.CalculatorTool;
import dev.agentswarm.core.tool.FinishTool;
import dev.agentswarm.core.tool.ToolRegistry;
import dev.agentswarm.orchestrator.swarm.SwarmEpisodes;
import dev.agentswarm.orchestrator.swarm.SwarmSettings;
import dev.agentswarm.orchestrator.WorkerRoute;
import dev.agentswarm.workers.EpisodeServices;
import dev.agentswarm.workers.RolloutWorker;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Swarms as training episodes: a rollout coordinator's RunEpisode gets the orchestrator's trajectory with the PARL reward. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SwarmEpisodesTest {

    private final ActorTestKit kit = ActorTestKit.create("swarm-episodes", EpisodeHarness.TEST_CONFIG);

    @AfterAll
    void stop() {
        kit.shutdownTestKit();
    }

    /** The orchestrator of every swarm splits "What is 6 * 7?" into two parts (one fails), then answers. */
    private static String script(CompletionRequest req) {
        return switch (SwarmHarness.agentOf(req.episodeId())) {
            case "root" -> req.turn() == 1
                    ? SwarmTest.spawn("[{\"id\": \"a\", \"goal\": \"Compute 6 * 7\"}, {\"id\": \"b\", \"goal\": \"Check it\"}]")
                    : SwarmTest.finish("42");
            case "root/a" -> SwarmTest.calculates(req, "6 * 7");
            default -> throw new PolicyException("no model for b", false);
        };
    }

    @Test
    void eachEpisodeIsASwarmAndComesBackAsTheOrchestratorsTrajectoryWithItsParlReward() {
        var config = ConfigFactory.parseString("""
                agentswarm.swarm.retries = 0
                agentswarm.swarm.parl { lambda-parallel = 0.5, lambda-finish = 0.25, anneal-steps = 0, parallel-target = 4 }
                """).withFallback(kit.system().settings().config()).resolve();
        SwarmSettings settings = SwarmSettings.fromConfig(config, Set.of("calculator", "finish"));
        var worker = kit.spawn(RolloutWorker.create(new EpisodeServices(ScriptedPolicy.texts(SwarmEpisodesTest::script),
                ToolRegistry.of(new CalculatorTool(), new FinishTool())), 100));
        var swarms = kit.spawn(SwarmEpisodes.create(settings, WorkerRoute.direct(worker)));
        TestProbe<Trajectory> probe = kit.createTestProbe(Trajectory.class);
        Task task = new Task("t1", "What is 6 * 7?", "42", Map.of());
        TestProbe<Trajectory> other = kit.createTestProbe(Trajectory.class);
        swarms.tell(new WorkerProtocol.RunEpisode("e1", "g1", task, settings.base(), 0, probe.getRef()));
        swarms.tell(new WorkerProtocol.RunEpisode("e2", "g1", task, settings.base(), 0, other.getRef()));
        Trajectory t = probe.receiveMessage(Duration.ofSeconds(20));
        probe.expectNoMessage(Duration.ofMillis(50));
        assertEquals("e2", other.receiveMessage(Duration.ofSeconds(20)).episodeId(), "swarms running at once each answer their own");

        assertEquals("e1", t.episodeId());
        assertEquals("g1", t.groupId());
        assertEquals(StopReason.FINAL_ANSWER, t.stopReason());
        assertEquals("42", t.finalAnswer());
        assertTrue(t.turns().get(0).text().contains("spawn_subagents"), "the orchestrator's own turns: " + t.turns().get(0).text());
        Map<String, Double> c = t.reward().components();
        assertEquals(1.0, c.get("perf"), "42 verified against the task's answer");
        assertEquals(0.5, c.get("parallel"), "2 of the 4 sub-agents parallel-target");
        assertEquals(0.5, c.get("finish"), "a answered, b failed");
        assertEquals(1.0 + 0.5 * 0.5 + 0.25 * 0.5, t.reward().total(), 1e-9);
    }
}
