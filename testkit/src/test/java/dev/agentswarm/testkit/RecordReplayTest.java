package dev.agentswarm.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.policy.PolicyException;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.ToolStatus;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.tool.CalculatorTool;
import dev.agentswarm.core.tool.ToolRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** A recorded run replays to the same trajectories, whatever the thread interleaving. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RecordReplayTest {

    private final ActorTestKit kit = ActorTestKit.create("replay", EpisodeHarness.TEST_CONFIG);

    @AfterAll
    void stop() {
        kit.shutdownTestKit();
    }

    /** What the scripted agent does on each turn: it reads its observations, so a replay must feed back the same ones. */
    static String reply(CompletionRequest req) {
        int episode = Integer.parseInt(req.messages().get(1).content().substring("episode ".length()));
        String last = req.messages().get(req.messages().size() - 1).content();
        return switch (req.turn()) {
            case 1 -> EpisodeLoopTest.call("echo", "{\"text\": \"ep-" + episode + "\"}");
            case 2 -> EpisodeLoopTest.call("calculator", "{\"expression\": \"" + last.length() + " * " + episode + " / 7\"}");
            case 3 -> EpisodeLoopTest.call("broken", "{}");
            case 4 -> EpisodeLoopTest.call("hang", "{}") + "\n" + EpisodeLoopTest.call("echo", "{\"text\": \"twice\"}");
            default -> {
                if (episode % 7 == 0) throw new PolicyException("server overloaded for episode " + episode, true);
                yield "final: " + last.length() + " characters seen last";
            }
        };
    }

    /** The scripted agent with random latency, so episodes interleave differently on every run. */
    static Policy jitteryPolicy() {
        ScriptedPolicy script = ScriptedPolicy.texts(RecordReplayTest::reply);
        return request -> {
            long delay = ThreadLocalRandom.current().nextLong(0, 15);
            return CompletableFuture.supplyAsync(() -> null, CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS))
                    .thenCompose(x -> script.complete(request));
        };
    }

    @Test
    void replayReproducesEveryTrajectoryUnderAnotherInterleaving(@TempDir Path dir) {
        Path file = dir.resolve("run.jsonl");
        FakeTool echo = FakeTool.named("echo", a -> "echo " + a.get("text").asText()).withLatency(java.time.Duration.ofMillis(3));
        List<Task> tasks = new ArrayList<>();
        for (int i = 0; i < 40; i++) tasks.add(new Task("task" + i, "episode " + i, null, java.util.Map.of()));

        List<Trajectory> recorded;
        try (RunRecorder recorder = new RunRecorder(file)) {
            ToolRegistry tools = recorder.wrap(ToolRegistry.of(new CalculatorTool(), echo,
                    FakeTool.failing("broken", "disk full"), FakeTool.hanging("hang")));
            EpisodeHarness h = EpisodeHarness.on(kit, recorder.wrap(jitteryPolicy()), tools);
            EpisodeSpec spec = h.spec().withLimits(6, 32000, 12000, 20_000, 150);
            recorded = h.runAll(tasks, spec);
            for (int i = 0; i < tasks.size(); i++) {
                recorder.episode(recorded.get(i).episodeId(), recorded.get(i).groupId(), tasks.get(i), spec);
                recorder.trajectory(recorded.get(i));
            }
        }
        assertEquals(6, recorded.stream().filter(t -> t.stopReason() == StopReason.POLICY_ERROR).count(),
                "episodes 0, 7, …, 35 hit a policy error");
        assertTrue(recorded.stream().flatMap(t -> t.turns().stream()).flatMap(t -> t.toolResults().stream())
                .anyMatch(r -> r.status() == ToolStatus.TIMEOUT), "some tool calls timed out");
        assertTrue(recorded.stream().flatMap(t -> t.turns().stream()).flatMap(t -> t.toolResults().stream())
                .anyMatch(r -> r.status() == ToolStatus.ERROR && r.content().contains("disk full")));

        RunRecording recording = RunRecording.load(file);
        assertEquals(40, recording.episodes().size());
        var episodes = new ArrayList<>(recording.episodes());
        for (int round = 0; round < 2; round++) {
            EpisodeHarness replay = EpisodeHarness.on(kit, recording.policy(), recording.tools());
            List<Trajectory> replayed = new ArrayList<>();
            if (round == 0) {
                // all at once, with no latency: an interleaving unlike the recorded one
                replayed.addAll(replay.runAll(episodes.stream().map(RunRecording.Episode::episodeId).toList(),
                        episodes.stream().map(RunRecording.Episode::task).toList(), episodes.get(0).spec()));
            } else {
                // one at a time, in reverse order
                java.util.Collections.reverse(episodes);
                for (var e : episodes) replayed.addAll(replay.runAll(List.of(e.episodeId()), List.of(e.task()), e.spec()));
            }
            assertEquals(40, replayed.size());
            for (Trajectory t : replayed) {
                assertEquals(recording.trajectories().get(t.episodeId()).withoutTimings(), t.withoutTimings(),
                        "episode " + t.episodeId() + " replayed differently");
            }
        }
    }

    @Test
    void aMalformedRecordingNamesTheLine(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("bad.jsonl");
        Files.writeString(file, "{\"kind\":\"tools\",\"tools\":[]}\n{not json\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RunRecording.load(file));
        assertTrue(e.getMessage().contains("bad.jsonl:2"), e.getMessage());
    }

    @Test
    void replayThatDivergesSaysSo() {
        RunRecording empty = RunRecording.fromResource("replay/empty.jsonl");
        var c = empty.policy().complete(new CompletionRequest("e1", 1, List.of(Message.user("x")), null, null, null));
        var e = assertThrows(java.util.concurrent.ExecutionException.class, () -> c.toCompletableFuture().get());
        assertTrue(e.getCause() instanceof PolicyException && e.getCause().getMessage().contains("diverged"));
    }
}
