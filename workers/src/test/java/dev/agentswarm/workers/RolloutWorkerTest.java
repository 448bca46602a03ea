package dev.agentswarm.workers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.context.TokenCounter;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.WorkerProtocol;
import dev.agentswarm.core.protocol.WorkerProtocol.CancelEpisode;
import dev.agentswarm.core.protocol.WorkerProtocol.RunEpisode;
import dev.agentswarm.core.tool.CalculatorTool;
import dev.agentswarm.core.tool.ToolRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/** The worker answers every episode exactly once, crashes included. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(LogCapturingExtension.class)
class RolloutWorkerTest {

    private final ActorTestKit kit = ActorTestKit.create("workers",
            ConfigFactory.parseString("pekko.actor.serialize-messages = on").withFallback(ConfigFactory.load()));
    private final EpisodeSpec spec = EpisodeSpec.fromConfig(ConfigFactory.load().getConfig("agentswarm.episode"));

    @AfterAll
    void stop() {
        kit.shutdownTestKit();
    }

    /** Answers "done: <task>" after {@code delayMs}; a task containing "crash" trips a bug in the token counter. */
    static Policy policy(long delayMs) {
        return new Policy() {
            @Override
            public CompletionStage<Completion> complete(CompletionRequest r) {
                Completion c = Completion.ofText("done: " + r.messages().get(1).content(), 10, 3);
                return delayMs == 0 ? CompletableFuture.completedFuture(c)
                        : CompletableFuture.supplyAsync(() -> c, CompletableFuture.delayedExecutor(delayMs, TimeUnit.MILLISECONDS));
            }

            @Override
            public TokenCounter tokenCounter() {
                return text -> {
                    if (text.contains("crash")) throw new IllegalStateException("counter bug on purpose");
                    return text.length() / 4;
                };
            }
        };
    }

    private ActorRef<WorkerProtocol.Command> worker(long delayMs) {
        return kit.spawn(RolloutWorker.create(new EpisodeServices(policy(delayMs), ToolRegistry.of(new CalculatorTool())), 100));
    }

    @Test
    void aCrashedEpisodeIsAnsweredAndTheWorkerGoesOn() {
        var w = worker(0);
        TestProbe<Trajectory> probe = kit.createTestProbe(Trajectory.class);
        w.tell(new RunEpisode("e1", "g", Task.of("t1", "please crash"), spec, 0, probe.getRef()));
        Trajectory crashed = probe.receiveMessage();
        assertEquals(StopReason.CRASHED, crashed.stopReason());
        assertTrue(crashed.error().contains("counter bug on purpose"), crashed.error());
        w.tell(new RunEpisode("e2", "g", Task.of("t2", "hello"), spec, 0, probe.getRef()));
        Trajectory ok = probe.receiveMessage();
        assertEquals(StopReason.FINAL_ANSWER, ok.stopReason());
        assertEquals("done: hello", ok.finalAnswer());
    }

    @Test
    void aDuplicateRequestIsAnsweredOnce() {
        var w = worker(200);
        TestProbe<Trajectory> probe = kit.createTestProbe(Trajectory.class);
        RunEpisode run = new RunEpisode("dup", "g", Task.of("t", "x"), spec, 0, probe.getRef());
        w.tell(run);
        w.tell(run); // while running
        probe.receiveMessage(Duration.ofSeconds(5));
        w.tell(run); // after answering
        probe.expectNoMessage(Duration.ofMillis(400));
    }

    @Test
    void theSameEpisodeAskedForByANewRequesterRunsForThatOneOnly() {
        // A durable swarm's orchestrator went on elsewhere: it asks again for episodes its dead predecessor asked for.
        var w = worker(300);
        TestProbe<Trajectory> gone = kit.createTestProbe(Trajectory.class);
        TestProbe<Trajectory> resumed = kit.createTestProbe(Trajectory.class);
        w.tell(new RunEpisode("moved", "g", Task.of("t", "x"), spec, 0, gone.getRef()));
        w.tell(new RunEpisode("moved", "g", Task.of("t", "x"), spec, 0, resumed.getRef())); // while it runs
        assertEquals("done: x", resumed.receiveMessage(Duration.ofSeconds(3)).finalAnswer());
        gone.expectNoMessage(Duration.ofMillis(400)); // the run for the first requester was stopped, not answered

        w.tell(new RunEpisode("answered", "g", Task.of("t", "y"), spec, 0, gone.getRef()));
        assertEquals("done: y", gone.receiveMessage(Duration.ofSeconds(3)).finalAnswer());
        w.tell(new RunEpisode("answered", "g", Task.of("t", "y"), spec, 0, resumed.getRef())); // answered, but to the other one
        assertEquals("done: y", resumed.receiveMessage(Duration.ofSeconds(3)).finalAnswer());
        w.tell(new RunEpisode("answered", "g", Task.of("t", "y"), spec, 0, resumed.getRef())); // now a plain duplicate
        resumed.expectNoMessage(Duration.ofMillis(400));
        gone.expectNoMessage(Duration.ofMillis(10));
    }

    @Test
    void cancelAnswersWithWhatWasDone() {
        var w = worker(5_000);
        TestProbe<Trajectory> probe = kit.createTestProbe(Trajectory.class);
        w.tell(new RunEpisode("c1", "g", Task.of("t", "x"), spec, 0, probe.getRef()));
        w.tell(new CancelEpisode("c1", "parent budget exhausted"));
        Trajectory t = probe.receiveMessage(Duration.ofSeconds(2));
        assertEquals(StopReason.CANCELLED, t.stopReason());
        assertTrue(t.error().contains("parent budget exhausted"));
    }

    @Test
    void aRequesterAskingForReceiptsHearsWhichNodeRunsTheEpisodeAgainForADuplicate() {
        var w = kit.spawn(RolloutWorker.create(new EpisodeServices(policy(300), ToolRegistry.of(new CalculatorTool())), 100,
                "pekko://swarm@10.0.0.7:2551", () -> Duration.ZERO));
        TestProbe<Trajectory> answers = kit.createTestProbe(Trajectory.class);
        TestProbe<WorkerProtocol.Receipt> receipts = kit.createTestProbe(WorkerProtocol.Receipt.class);
        RunEpisode run = new RunEpisode("r1", "g", Task.of("t", "x"), spec, 0, answers.getRef()).withReceipts(receipts.getRef());
        w.tell(run);
        assertEquals(new WorkerProtocol.Accepted("r1", "pekko://swarm@10.0.0.7:2551"), receipts.receiveMessage());
        w.tell(run); // sent again while it runs: acknowledged, not run twice
        assertEquals(new WorkerProtocol.Accepted("r1", "pekko://swarm@10.0.0.7:2551"), receipts.receiveMessage());
        assertEquals(StopReason.FINAL_ANSWER, answers.receiveMessage(Duration.ofSeconds(3)).stopReason());
        answers.expectNoMessage(Duration.ofMillis(400));
    }

    @Test
    void aHandOffDrainsRunningEpisodesThenGivesBackWhatIsLeft() {
        // One episode finishes within the drain, one would take 5 s: it is given back, never answered.
        Policy slowOrFast = new Policy() {
            @Override
            public CompletionStage<Completion> complete(CompletionRequest r) {
                long delay = r.messages().get(1).content().contains("slow") ? 5_000 : 300;
                return CompletableFuture.supplyAsync(() -> Completion.ofText("done", 10, 1),
                        CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS));
            }

            @Override
            public TokenCounter tokenCounter() {
                return text -> text.length() / 4;
            }
        };
        var w = kit.spawn(RolloutWorker.create(new EpisodeServices(slowOrFast, ToolRegistry.of(new CalculatorTool())), 100, "n1",
                () -> Duration.ofSeconds(1)));
        TestProbe<Trajectory> answers = kit.createTestProbe(Trajectory.class);
        TestProbe<WorkerProtocol.Receipt> receipts = kit.createTestProbe(WorkerProtocol.Receipt.class);
        TestProbe<Object> watcher = kit.createTestProbe();
        w.tell(new RunEpisode("fast", "g", Task.of("t", "fast"), spec, 0, answers.getRef()).withReceipts(receipts.getRef()));
        w.tell(new RunEpisode("slow", "g", Task.of("t", "slow"), spec, 0, answers.getRef()).withReceipts(receipts.getRef()));
        receipts.receiveSeveralMessages(2);
        w.tell(RolloutWorker.Stop.INSTANCE);
        w.tell(new RunEpisode("late", "g", Task.of("t", "fast"), spec, 0, answers.getRef()).withReceipts(receipts.getRef()));
        assertEquals(new WorkerProtocol.Released("late", "the worker is handing off"), receipts.receiveMessage());
        Trajectory fast = answers.receiveMessage(Duration.ofSeconds(2));
        assertEquals("fast", fast.episodeId());
        assertEquals(StopReason.FINAL_ANSWER, fast.stopReason(), "an episode that ends within the drain is answered as usual");
        WorkerProtocol.Receipt slow = receipts.receiveMessage(Duration.ofSeconds(3));
        assertTrue(slow instanceof WorkerProtocol.Released r && r.episodeId().equals("slow"), slow.toString());
        watcher.expectTerminated(w, Duration.ofSeconds(2));
        answers.expectNoMessage(Duration.ofMillis(300));
    }

    @Test
    void handOffCancelsRunningEpisodesSoEachIsAnswered() {
        var w = worker(5_000);
        TestProbe<Trajectory> probe = kit.createTestProbe(Trajectory.class);
        TestProbe<Object> watcher = kit.createTestProbe();
        w.tell(new RunEpisode("s1", "g", Task.of("t", "x"), spec, 0, probe.getRef()));
        w.tell(new RunEpisode("s2", "g", Task.of("t", "y"), spec, 0, probe.getRef()));
        w.tell(RolloutWorker.Stop.INSTANCE);
        for (Trajectory t : probe.receiveSeveralMessages(2, Duration.ofSeconds(3))) {
            assertEquals(StopReason.CANCELLED, t.stopReason());
            assertTrue(t.error().contains("no other worker node") && t.error().contains("send the episode again"), t.error());
        }
        watcher.expectTerminated(w, Duration.ofSeconds(3));
    }

    @Test
    void aMalformedRequestIsRejectedWithoutHurtingOthers() {
        var w = worker(300);
        TestProbe<Trajectory> probe = kit.createTestProbe(Trajectory.class);
        w.tell(new RunEpisode("good", "g", Task.of("t", "fine"), spec, 0, probe.getRef()));
        w.tell(new RunEpisode("bad", "g", null, spec, 0, probe.getRef()));
        Trajectory rejected = probe.receiveMessage(Duration.ofSeconds(2));
        assertEquals("bad", rejected.episodeId());
        assertEquals(StopReason.INVALID_REQUEST, rejected.stopReason());
        assertTrue(rejected.error().contains("no task"));
        Trajectory good = probe.receiveMessage(Duration.ofSeconds(3));
        assertEquals(StopReason.FINAL_ANSWER, good.stopReason());
    }

    @Test
    void manyEpisodesAllAnswered() {
        var w = worker(1);
        TestProbe<Trajectory> probe = kit.createTestProbe(Trajectory.class);
        for (int i = 0; i < 500; i++) w.tell(new RunEpisode("m" + i, "g", Task.of("t" + i, "n" + i), spec, 0, probe.getRef()));
        var ids = probe.receiveSeveralMessages(500, Duration.ofSeconds(20)).stream().map(Trajectory::episodeId).distinct().count();
        assertEquals(500, ids);
        probe.expectNoMessage(Duration.ofMillis(100));
    }
}
