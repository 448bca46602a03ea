package dev.agentswarm.testkit;

import static dev.agentswarm.testkit.TrajectoryAssert.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.protocol.EpisodeOutcome;
import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.core.protocol.InfraFailure;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.tool.FinishTool;
import dev.agentswarm.core.tool.ToolRegistry;
import dev.agentswarm.policy.chat.ChatTemplate;
import dev.agentswarm.policy.embedded.Generation;
import dev.agentswarm.policy.tokenizer.BpeTokenizer;
import dev.agentswarm.workers.EmbeddedPolicy;
import dev.agentswarm.workers.PolicyServer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The embedded policy's failures as an episode meets them: a server whose queue is full for a moment
 * is asked again and the episode answers; one that never answers ends the episode as an
 * infrastructure failure after its retries, never as the policy's answer.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EmbeddedPolicyRetryTest {

    private final ActorTestKit kit = ActorTestKit.create("embedded-retry", ConfigFactory.parseString("""
            agentswarm.worker { policy-retries = 3, policy-retry-backoff = 5 ms }
            """).withFallback(EpisodeHarness.TEST_CONFIG));
    private static final ChatTemplate TEMPLATE = new ChatTemplate(BpeTokenizer.untrained());

    @AfterAll
    void stop() {
        kit.shutdownTestKit();
    }

    /** A policy server rejecting the first {@code full} requests as its queue is full (its words), then answering. */
    private static Behavior<PolicyServer.Command> server(int full, AtomicInteger asked) {
        return Behaviors.receiveMessage(msg -> {
            if (msg instanceof PolicyServer.Generate g) {
                if (asked.incrementAndGet() <= full) {
                    g.replyTo().tell(new PolicyServer.Rejected(g.requestId(), "policy server queue full: 64 requests waiting and 8 running"));
                } else {
                    g.replyTo().tell(new PolicyServer.Generated(new Generation(g.requestId(), new int[] {1, 2}, new float[] {-0.1f, -0.2f},
                            "The answer is 42", FinishReason.STOP, 0, 0, g.prompt().length, 0, 0)));
                }
            }
            return Behaviors.same();
        });
    }

    private Trajectory run(ActorRef<PolicyServer.Command> server, Duration timeout) {
        EmbeddedPolicy policy = new EmbeddedPolicy(server, TEMPLATE, kit.system().scheduler(), timeout, "fake embedded");
        return EpisodeHarness.on(kit, policy, ToolRegistry.of(new FinishTool())).run(Task.of("t", "What is six times seven?"));
    }

    @Test
    void aQueueFullForAMomentIsAskedAgainAndTheEpisodeAnswers() {
        AtomicInteger asked = new AtomicInteger();
        Trajectory t = run(kit.spawn(server(2, asked)), Duration.ofSeconds(5));
        assertThat(t).stoppedBecause(StopReason.FINAL_ANSWER).hasFinalAnswer("The answer is 42").hasPolicyTurns(1);
        assertEquals(3, asked.get());
        assertEquals(EpisodeOutcome.ANSWERED, t.outcome());
    }

    @Test
    void aQueueStillFullAfterTheRetriesIsAnInfrastructureFailure() {
        AtomicInteger asked = new AtomicInteger();
        Trajectory t = run(kit.spawn(server(Integer.MAX_VALUE, asked)), Duration.ofSeconds(5));
        assertThat(t).stoppedBecause(StopReason.POLICY_ERROR);
        assertEquals(InfraFailure.POLICY_UNAVAILABLE, t.infraFailure());
        assertTrue(t.error().contains("queue full"), t.error());
        assertEquals(4, asked.get());
        assertNull(t.reward());
    }

    @Test
    void aServerThatNeverAnswersIsUnreachableNotThePolicysAnswer() {
        AtomicInteger asked = new AtomicInteger();
        ActorRef<PolicyServer.Command> silent = kit.spawn(Behaviors.receiveMessage(msg -> {
            if (msg instanceof PolicyServer.Generate) asked.incrementAndGet();
            return Behaviors.same();
        }));
        Trajectory t = run(silent, Duration.ofMillis(50));
        assertThat(t).stoppedBecause(StopReason.POLICY_ERROR);
        assertEquals(InfraFailure.POLICY_UNAVAILABLE, t.infraFailure());
        assertEquals(4, asked.get(), "asked once and retried three times, each timing out");
    }
}
