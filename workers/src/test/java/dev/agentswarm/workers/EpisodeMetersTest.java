package dev.agentswarm.workers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.metrics.NodeMetrics;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.WorkerProtocol;
import dev.agentswarm.core.protocol.WorkerProtocol.RunEpisode;
import dev.agentswarm.core.context.TokenCounter;
import dev.agentswarm.core.tool.CalculatorTool;
import dev.agentswarm.core.tool.ToolRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Episodes record on their node's registry: running, finished by stop reason, live turns and generated tokens. */
@ExtendWith(LogCapturingExtension.class)
class EpisodeMetersTest {

    private final ActorTestKit kit = ActorTestKit.create("episode-meters",
            ConfigFactory.parseString("pekko.actor.serialize-messages = on").withFallback(ConfigFactory.load()));
    private final EpisodeSpec spec = EpisodeSpec.fromConfig(ConfigFactory.load().getConfig("agentswarm.episode"))
            .withLimits(3, 4000, 4000, 30_000, 5_000);

    @AfterEach
    void stop() {
        kit.shutdownTestKit();
    }

    /** "loop" tasks call the calculator every turn (5 tokens each); others answer at once (3 tokens); "crash" breaks the counter. */
    private static final Policy POLICY = new Policy() {
        @Override
        public CompletionStage<Completion> complete(CompletionRequest r) {
            String task = r.messages().get(1).content();
            return CompletableFuture.completedFuture(task.contains("loop")
                    ? Completion.ofText("<tool_call>{\"name\": \"calculator\", \"arguments\": {\"expression\": \"1+1\"}}</tool_call>", 10, 5)
                    : Completion.ofText("done: " + task, 10, 3));
        }

        @Override
        public TokenCounter tokenCounter() {
            return text -> {
                if (text.contains("crash")) throw new IllegalStateException("counter bug on purpose");
                return text.length() / 4;
            };
        }
    };

    @Test
    void episodesAreCountedByStopReasonWithTheirTurnsAndTokens() {
        MeterRegistry registry = NodeMetrics.get(kit.system()).registry();
        ActorRef<WorkerProtocol.Command> worker = kit.spawn(RolloutWorker.create(new EpisodeServices(POLICY,
                ToolRegistry.of(new CalculatorTool())), 100));
        TestProbe<Trajectory> probe = kit.createTestProbe(Trajectory.class);
        List<String> tasks = List.of("answer one", "answer two", "loop forever", "please crash");
        for (int i = 0; i < tasks.size(); i++) {
            worker.tell(new RunEpisode("e" + i, "g", Task.of("t" + i, tasks.get(i)), spec, 0, probe.getRef()));
        }
        worker.tell(new RunEpisode(null, "g", Task.of("t9", "no id"), spec, 0, probe.getRef()));
        List<Trajectory> answers = probe.receiveSeveralMessages(5);
        assertEquals(2, answers.stream().filter(t -> t.stopReason() == StopReason.FINAL_ANSWER).count(), answers.toString());

        assertEquals(2, finished(registry, "final_answer"));
        assertEquals(1, finished(registry, "max_turns"));
        assertEquals(1, finished(registry, "crashed"));
        assertEquals(1, finished(registry, "invalid_request"));
        assertEquals(0, finished(registry, "deadline"), "every stop reason is there from the start, at 0");
        assertEquals(2 + 3, registry.get(EpisodeMeters.TURNS).counter().count(), "one turn per answer, three for max-turns");
        assertEquals(2 * 3 + 3 * 5, registry.get(EpisodeMeters.TOKENS).counter().count());
        // The last episode stops just after its answer is sent.
        probe.awaitAssert(() -> {
            assertEquals(0, registry.get(EpisodeMeters.RUNNING).gauge().value());
            return null;
        });
    }

    @Test
    void runningCountsEpisodesInFlight() {
        Policy waits = new Policy() {
            @Override
            public CompletionStage<Completion> complete(CompletionRequest r) {
                return new CompletableFuture<>(); // never answers: each episode waits until cancelled
            }

            @Override
            public TokenCounter tokenCounter() {
                return text -> text.length() / 4;
            }
        };
        MeterRegistry registry = NodeMetrics.get(kit.system()).registry();
        ActorRef<WorkerProtocol.Command> worker = kit.spawn(RolloutWorker.create(new EpisodeServices(waits, ToolRegistry.of(new CalculatorTool())), 100));
        TestProbe<Trajectory> probe = kit.createTestProbe(Trajectory.class);
        for (int i = 0; i < 3; i++) worker.tell(new RunEpisode("w" + i, "g", Task.of("t", "wait"), spec, 0, probe.getRef()));
        probe.awaitAssert(() -> {
            assertEquals(3, registry.get(EpisodeMeters.RUNNING).gauge().value());
            return null;
        });
        worker.tell(new WorkerProtocol.CancelEpisode("w0", "test"));
        assertEquals(StopReason.CANCELLED, probe.receiveMessage().stopReason());
        probe.awaitAssert(() -> {
            assertEquals(2, registry.get(EpisodeMeters.RUNNING).gauge().value());
            return null;
        });
        assertEquals(1, finished(registry, "cancelled"));
        assertEquals(0, registry.get(EpisodeMeters.TURNS).counter().count(), "no policy turn was answered");
    }

    private static double finished(MeterRegistry registry, String reason) {
        return registry.get(EpisodeMeters.FINISHED).tag("stop_reason", reason).counter().count();
    }
}
