package dev.agentswarm.testkit;

import static dev.agentswarm.testkit.TrajectoryAssert.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.environment.ConversationPartner;
import dev.agentswarm.core.environment.TaskEnvironment;
import dev.agentswarm.core.environment.TaskEnvironments;
import dev.agentswarm.core.policy.PolicyException;
import dev.agentswarm.core.protocol.EpisodeOutcome;
import dev.agentswarm.core.protocol.InfraFailure;
import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.ToolStatus;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.tool.FinishTool;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.core.tool.ToolRegistry;
import dev.agentswarm.environments.mcp.McpException;
import dev.agentswarm.environments.mcp.McpToolError;
import dev.agentswarm.sandbox.SandboxUnavailableException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Failures under the policy, injected into real episodes: each ends the trajectory with its cause
 * and no reward (never a 0 the policy did not earn), while the policy's own failures stay its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InfraFailureEpisodeTest {

    private final ActorTestKit kit = ActorTestKit.create("infra", ConfigFactory.parseString("""
            agentswarm.worker { policy-retries = 3, policy-retry-backoff = 5 ms }
            """).withFallback(EpisodeHarness.TEST_CONFIG));

    @AfterAll
    void stop() {
        kit.shutdownTestKit();
    }

    private static String call(String tool) {
        return "<tool_call>\n{\"name\": \"" + tool + "\", \"arguments\": {}}\n</tool_call>";
    }

    /** A task environment offering {@code tools}, scored by {@code scorer}, with an optional simulated user. */
    private record Env(List<Tool> tools, java.util.function.Function<Trajectory, CompletionStage<RewardBreakdown>> scorer,
                       ConversationPartner partner, AtomicInteger scored) implements TaskEnvironments {
        @Override
        public Optional<TaskEnvironment> open(Task task, String episodeId) {
            return Optional.of(new TaskEnvironment() {
                @Override
                public List<Tool> tools() {
                    return tools;
                }

                @Override
                public ConversationPartner partner() {
                    return partner;
                }

                @Override
                public RewardBreakdown score(Trajectory t) {
                    throw new UnsupportedOperationException();
                }

                @Override
                public CompletionStage<RewardBreakdown> scoreAsync(Trajectory t) {
                    scored.incrementAndGet();
                    return scorer.apply(t);
                }

                @Override
                public void close() {}
            });
        }
    }

    private static final RewardBreakdown ONE = new RewardBreakdown(Map.of("correct", 1.0), 1.0);

    private Trajectory run(ScriptedPolicy policy, Env env) {
        return EpisodeHarness.on(kit, policy, ToolRegistry.of(new FinishTool()), env).run(Task.of("t", "x"));
    }

    private static Env scoredOne(Tool... tools) {
        return new Env(List.of(tools), t -> CompletableFuture.completedFuture(ONE), null, new AtomicInteger());
    }

    private static void assertInfra(Trajectory t, InfraFailure cause) {
        assertEquals(cause, t.infraFailure(), t.toString());
        assertEquals(EpisodeOutcome.INFRA_FAILURE, t.outcome());
        assertNull(t.reward(), "no reward is made up for an infrastructure failure");
    }

    @Test
    void aQueueFullForAMomentIsRetriedInsideTheEpisodeWhichAnswers() {
        AtomicInteger calls = new AtomicInteger();
        ScriptedPolicy policy = ScriptedPolicy.texts(req -> {
            if (calls.incrementAndGet() <= 2) throw new PolicyException("policy server queue full (64 waiting)", true);
            return "The answer is 42";
        });
        Trajectory t = run(policy, scoredOne());
        assertThat(t).stoppedBecause(StopReason.FINAL_ANSWER).hasFinalAnswer("The answer is 42").hasPolicyTurns(1);
        assertEquals(3, calls.get(), "two retries, then the answer");
        assertEquals(EpisodeOutcome.ANSWERED, t.outcome());
        assertEquals(1.0, t.reward().total());
    }

    @Test
    void aPolicyServerStillDownAfterItsRetriesIsAnInfrastructureFailureNotAZero() {
        AtomicInteger calls = new AtomicInteger();
        Env env = scoredOne();
        Trajectory t = run(ScriptedPolicy.texts(req -> {
            calls.incrementAndGet();
            throw new PolicyException("connection refused: http://127.0.0.1:1/v1", true);
        }), env);
        assertThat(t).stoppedBecause(StopReason.POLICY_ERROR);
        assertInfra(t, InfraFailure.POLICY_UNAVAILABLE);
        assertEquals(4, calls.get(), "asked once and retried policy-retries (3) times");
        assertTrue(t.error().contains("connection refused") && t.error().contains("after 3 retries"), t.error());
        assertEquals(0, env.scored().get(), "nothing to score");
    }

    @Test
    void aPolicyFailureThatNoRetryMendsIsThePolicysOwnAndScored() {
        AtomicInteger calls = new AtomicInteger();
        Env env = scoredOne();
        Trajectory t = run(ScriptedPolicy.texts(req -> {
            calls.incrementAndGet();
            throw new PolicyException("the response had no choices", false);
        }), env);
        assertThat(t).stoppedBecause(StopReason.POLICY_ERROR);
        assertEquals(1, calls.get(), "not retried");
        assertNull(t.infraFailure());
        assertEquals(EpisodeOutcome.POLICY_FAILURE, t.outcome());
        assertEquals(1, env.scored().get());
    }

    @Test
    void aSandboxThatCannotStartEndsTheEpisodeAsInfrastructure() {
        Env env = scoredOne(FakeTool.named("run_code", a -> {
            throw new SandboxUnavailableException("bubblewrap is not installed at /nonexistent/bwrap");
        }));
        Trajectory t = run(ScriptedPolicy.replies(call("run_code"), "The answer is 42"), env);
        assertThat(t).stoppedBecause(StopReason.TOOL_UNAVAILABLE);
        assertInfra(t, InfraFailure.SANDBOX_UNAVAILABLE);
        assertTrue(t.error().contains("bubblewrap"), t.error());
        assertEquals(0, env.scored().get());
    }

    @Test
    void anMcpServerDownEndsTheEpisodeButAToolErrorIsTheModelsToRead() {
        Env down = scoredOne(FakeTool.named("search", a -> {
            throw new McpException("MCP server 'web' exited with code 137 during tools/call 'search'", ToolStatus.SERVER_DOWN);
        }));
        Trajectory t = run(ScriptedPolicy.replies(call("search"), "The answer is 42"), down);
        assertThat(t).stoppedBecause(StopReason.TOOL_UNAVAILABLE);
        assertInfra(t, InfraFailure.MCP_SERVER_DOWN);

        Env refused = scoredOne(FakeTool.named("search", a -> {
            throw new McpToolError("no results for that query");
        }));
        Trajectory read = run(ScriptedPolicy.replies(call("search"), "The answer is 42"), refused);
        assertThat(read).stoppedBecause(StopReason.FINAL_ANSWER).observed("no results for that query");
        assertNull(read.infraFailure());
        assertNotNull(read.reward());
    }

    @Test
    void aScorerThatFailsLeavesNoRewardInsteadOfAZero() {
        Env env = new Env(List.of(), t -> CompletableFuture.failedFuture(new IllegalStateException("grader's sandbox died")), null,
                new AtomicInteger());
        Trajectory t = run(ScriptedPolicy.replies("The answer is 42"), env);
        assertThat(t).stoppedBecause(StopReason.FINAL_ANSWER).hasFinalAnswer("The answer is 42");
        assertInfra(t, InfraFailure.SCORER_FAILED);
        assertTrue(t.error().contains("grader's sandbox died"), t.error());
    }

    @Test
    void aSimulatedUserThatFailsIsInfrastructure() {
        ConversationPartner user = new ConversationPartner() {
            @Override
            public String greeting() {
                return "Hi! How can I help you today?";
            }

            @Override
            public CompletionStage<Reply> reply(String agentMessage) {
                return CompletableFuture.failedFuture(new PolicyException("user model: HTTP 503", true));
            }
        };
        Env env = new Env(List.of(), t -> CompletableFuture.completedFuture(ONE), user, new AtomicInteger());
        Trajectory t = run(ScriptedPolicy.replies("hello"), env);
        assertThat(t).stoppedBecause(StopReason.POLICY_ERROR);
        assertInfra(t, InfraFailure.SIMULATED_USER_FAILED);
    }
}
