package dev.agentswarm.workers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.context.TokenCounter;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.policy.PolicyException;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.WorkerProtocol;
import dev.agentswarm.core.protocol.WorkerProtocol.RunEpisode;
import dev.agentswarm.core.tool.ToolRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Episodes on a worker call python and bash in their own sandbox session, which ends with the episode. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SandboxPoolTest {

    private final ActorTestKit kit = ActorTestKit.create("sandbox-pool");
    private final SandboxPool pool = SandboxPool.fromConfig(
            ConfigFactory.parseString("agentswarm.sandbox { warm-sessions = 0, sessions = 4 }").withFallback(ConfigFactory.load()));
    private final EpisodeSpec spec = EpisodeSpec.fromConfig(ConfigFactory.load().getConfig("agentswarm.episode"))
            .withTools(List.of("python", "bash"));

    @AfterAll
    void stop() {
        kit.shutdownTestKit();
    }

    private static String call(String tool, String field, String code) {
        return "<tool_call>\n{\"name\": \"" + tool + "\", \"arguments\": {\"" + field + "\": \"" + code + "\"}}\n</tool_call>";
    }

    /** Replies by turn; a null reply fails the policy call (the episode ends with a policy error). */
    private static Policy script(Function<Integer, String> byTurn) {
        return new Policy() {
            @Override
            public CompletionStage<Completion> complete(CompletionRequest r) {
                String text = byTurn.apply(r.turn());
                if (text == null) return CompletableFuture.failedFuture(new PolicyException("scripted failure", false));
                return CompletableFuture.completedFuture(Completion.ofText(text, 10, 3));
            }

            @Override
            public TokenCounter tokenCounter() {
                return text -> text.length() / 4;
            }
        };
    }

    private Trajectory run(String episode, Policy policy) {
        ActorRef<WorkerProtocol.Command> worker = kit.spawn(RolloutWorker.create(new EpisodeServices(policy, ToolRegistry.of(pool.tools())), 10));
        TestProbe<Trajectory> probe = kit.createTestProbe(Trajectory.class);
        worker.tell(new RunEpisode(episode, "g", Task.of("t", "compute"), spec, 0, probe.getRef()));
        return probe.receiveMessage(Duration.ofSeconds(30));
    }

    private void awaitNoSessions() {
        kit.createTestProbe().awaitAssert(Duration.ofSeconds(10), () -> {
            assertEquals(0, pool.episodesWithSession());
            assertEquals(0, pool.sandbox().openSessions());
            return null;
        });
    }

    @Test
    void variablesAndFilesLastForTheEpisodeAndTheSessionClosesAfterIt() {
        Trajectory t = run("keeps-state", script(turn -> switch (turn) {
            case 1 -> call("python", "code", "x = 41");
            case 2 -> call("bash", "command", "echo $((6 * 7)) > answer.txt");
            case 3 -> call("python", "code", "x + 1, open('answer.txt').read().strip()");
            default -> "The answer is 42";
        }));
        assertEquals(StopReason.FINAL_ANSWER, t.stopReason(), t.error());
        List<String> observations = t.transcript().stream().filter(m -> m.content().startsWith("<tool_response>")).map(Message::content).toList();
        assertEquals(3, observations.size(), t.transcript().toString());
        assertTrue(observations.get(2).contains("(42, '42')"), observations.get(2));
        awaitNoSessions();
    }

    @Test
    void anEpisodeThatFailsMidwayStillClosesItsSession() {
        Trajectory t = run("fails", script(turn -> turn == 1 ? call("python", "code", "import time; t = time.time()") : null));
        assertEquals(StopReason.POLICY_ERROR, t.stopReason());
        assertEquals(1, t.stats().toolSuccesses());
        awaitNoSessions();
    }
}
