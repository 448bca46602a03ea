package dev.agentswarm.testkit;

import static dev.agentswarm.testkit.TrajectoryAssert.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.context.ApproxTokenCounter;
import dev.agentswarm.core.policy.PolicyException;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Role;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.ToolStatus;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
import dev.agentswarm.core.tool.CalculatorTool;
import dev.agentswarm.core.tool.FinishTool;
import dev.agentswarm.core.tool.ToolRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/** The episode loop on ActorTestKit: think → act → observe, self-correction, limits, parallel calls, compression. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(LogCapturingExtension.class)
class EpisodeLoopTest {

    private final ActorTestKit kit = ActorTestKit.create("episodes", EpisodeHarness.TEST_CONFIG);

    @AfterAll
    void stop() {
        kit.shutdownTestKit();
    }

    private EpisodeHarness harness(ScriptedPolicy policy, dev.agentswarm.core.tool.Tool... extra) {
        ToolRegistry tools = ToolRegistry.of(new CalculatorTool(), new FinishTool());
        for (var t : extra) tools = tools.plus(t);
        return EpisodeHarness.on(kit, policy, tools);
    }

    static String call(String tool, String argsJson) {
        return "<tool_call>\n{\"name\": \"" + tool + "\", \"arguments\": " + argsJson + "}\n</tool_call>";
    }

    @Test
    void calculatorEpisodeReachesTheFinalAnswer() {
        var h = harness(ScriptedPolicy.replies(call("calculator", "{\"expression\": \"(2 + 3) * 4 ^ 2\"}"), "The answer is 80"));
        Trajectory t = h.run(Task.of("t1", "What is (2 + 3) * 4 ^ 2?"));
        assertThat(t).stoppedBecause(StopReason.FINAL_ANSWER).hasFinalAnswer("The answer is 80")
                .hasPolicyTurns(2).hasToolCalls(1).hasToolSuccesses(1).hasFormatErrors(0).observed("80");
        assertEquals(List.of(Role.ASSISTANT, Role.USER, Role.ASSISTANT), t.turns().stream().map(Turn::role).toList());
        assertEquals("<tool_response>\n80\n</tool_response>", t.turns().get(1).text());
        assertEquals(2, t.prompt().size());
        assertTrue(t.prompt().get(0).content().contains("<tools>"), "the system prompt lists the tools");
    }

    @Test
    void aSpecWithoutToolsInPromptStillRunsTheToolsButLeavesTheirBlockOut() {
        var h = harness(ScriptedPolicy.replies(call("calculator", "{\"expression\": \"6 * 7\"}"), "42"));
        EpisodeSpec s = h.spec();
        EpisodeSpec bare = new EpisodeSpec(s.systemPrompt(), s.format(), s.tools(), s.toolChoice(), s.maxTurns(), s.tokenBudget(),
                s.contextBudget(), s.deadlineMillis(), s.toolTimeoutMillis(), s.maxToolResultChars(), s.sampling(), false)
                .withSystemPrompt("Use the calculator.").withMaxTurns(4);
        assertFalse(bare.toolsInPrompt(), "the with-methods keep the setting");
        Trajectory t = h.run(Task.of("t", "6 * 7?"), bare);
        assertThat(t).stoppedBecause(StopReason.FINAL_ANSWER).hasFinalAnswer("42").hasToolSuccesses(1).hasFormatErrors(0);
        assertEquals("Use the calculator.", t.prompt().get(0).content(), "the system prompt is the spec's alone");
    }

    @Test
    void badArgumentsBecomeAnObservationAndThePolicyCorrectsItself() {
        var h = harness(ScriptedPolicy.replies(
                call("calculator", "{\"expr\": \"1 + 1\"}"),
                call("calculator", "{\"expression\": \"1 + 1\"}"),
                "2"));
        Trajectory t = h.run(Task.of("t", "1+1?"));
        assertThat(t).stoppedBecause(StopReason.FINAL_ANSWER).hasFinalAnswer("2").hasToolCalls(2).hasToolSuccesses(1)
                .hasToolResult(ToolStatus.INVALID_ARGUMENTS, "expression");
    }

    @Test
    void malformedCompletionIsFedBackAsAFormatError() {
        var h = harness(ScriptedPolicy.replies("<tool_call>\n{\"name\": \"calculator\", \"arguments\": {\"expression\": </tool_call>",
                call("calculator", "{\"expression\": \"6 * 7\"}"), "42"));
        Trajectory t = h.run(Task.of("t", "6*7?"));
        assertThat(t).stoppedBecause(StopReason.FINAL_ANSWER).hasFinalAnswer("42").hasFormatErrors(1).hasToolSuccesses(1);
        assertFalse(t.turns().get(0).formatErrors().isEmpty(), "the bad turn records its format errors");
    }

    @Test
    void unknownToolDivisionByZeroAndFailingToolAreObservations() {
        var h = harness(ScriptedPolicy.replies(
                call("weather", "{\"city\": \"Paris\"}"),
                call("calculator", "{\"expression\": \"1 / 0\"}"),
                call("flaky", "{}"),
                "done"), FakeTool.failing("flaky", "backend unavailable"));
        Trajectory t = h.run(Task.of("t", "try things"));
        assertThat(t).stoppedBecause(StopReason.FINAL_ANSWER).hasToolCalls(3).hasToolSuccesses(0)
                .hasToolResult(ToolStatus.UNKNOWN_TOOL, "weather")
                .hasToolResult(ToolStatus.ERROR, "division by zero")
                .hasToolResult(ToolStatus.ERROR, "backend unavailable");
    }

    @Test
    void toolTimeoutIsAnObservationNotTheEndOfTheEpisode() {
        var h = harness(ScriptedPolicy.replies(call("slow", "{}"), "gave up on slow"), FakeTool.hanging("slow"));
        EpisodeSpec spec = h.spec().withLimits(16, 32000, 12000, 10_000, 100);
        Trajectory t = h.run(Task.of("t", "call slow"), spec);
        assertThat(t).stoppedBecause(StopReason.FINAL_ANSWER).hasToolResult(ToolStatus.TIMEOUT, "slow");
    }

    @Test
    void toolCallsOfOneTurnRunConcurrently() {
        FakeTool slow = FakeTool.named("lookup", a -> "found " + a.get("q").asText()).withLatency(Duration.ofMillis(400));
        var h = harness(ScriptedPolicy.replies(call("lookup", "{\"q\": \"a\"}") + "\n" + call("lookup", "{\"q\": \"b\"}")
                + "\n" + call("lookup", "{\"q\": \"c\"}"), "a, b, c found"), slow);
        Trajectory t = h.run(Task.of("t", "look up a, b and c"));
        assertThat(t).stoppedBecause(StopReason.FINAL_ANSWER).hasToolCalls(3).hasToolSuccesses(3);
        Turn obs = t.turns().get(1);
        assertEquals(List.of("found a", "found b", "found c"), obs.toolResults().stream().map(r -> r.content()).toList(),
                "results come back in call order");
        assertTrue(obs.timing().durationNanos() < Duration.ofMillis(1000).toNanos(),
                "three 400 ms calls took " + obs.timing().durationNanos() / 1e6 + " ms: they did not overlap");
    }

    @Test
    void maxTurnsEndsAnEpisodeThatNeverAnswers() {
        var h = harness(ScriptedPolicy.texts(req -> call("calculator", "{\"expression\": \"1 + " + req.turn() + "\"}")));
        Trajectory t = h.run(Task.of("t", "loop"), h.spec().withLimits(3, 32000, 12000, 10_000, 1000));
        assertThat(t).stoppedBecause(StopReason.MAX_TURNS).hasPolicyTurns(3).hasToolCalls(3);
        assertEquals(null, t.finalAnswer());
    }

    @Test
    void tokenBudgetEndsAnEpisode() {
        var h = harness(ScriptedPolicy.texts(req -> call("calculator", "{\"expression\": \"2 ^ 100\"}")));
        Trajectory t = h.run(Task.of("t", "loop"), h.spec().withLimits(100, 120, 12000, 10_000, 1000));
        assertThat(t).stoppedBecause(StopReason.TOKEN_BUDGET);
        assertTrue(t.stats().turns() < 100);
    }

    @Test
    void deadlineEndsASlowEpisode() {
        var h = harness(ScriptedPolicy.replies("a", "b").withLatency(Duration.ofMillis(2000)));
        long t0 = System.nanoTime();
        Trajectory t = h.run(Task.of("t", "slow"), h.spec().withLimits(16, 32000, 12000, 200, 1000));
        assertThat(t).stoppedBecause(StopReason.DEADLINE);
        assertTrue(System.nanoTime() - t0 < Duration.ofMillis(1500).toNanos(), "the deadline did not wait for the policy");
    }

    @Test
    void thousandsOfSynchronousTurnsNeitherOverflowTheStackNorIgnoreTheDeadline() {
        var h = harness(ScriptedPolicy.texts(req -> call("calculator", "{\"expression\": \"1 + " + req.turn() + "\"}")));
        // 3,000 turns overflowed the stack when every synchronous answer was handled inline.
        Trajectory t = h.run(Task.of("t", "loop"), h.spec().withLimits(3000, 10_000_000, 10_000_000, 60_000, 1000));
        assertThat(t).stoppedBecause(StopReason.MAX_TURNS).hasPolicyTurns(3000);

        var slow = harness(ScriptedPolicy.texts(req -> {
            long until = System.nanoTime() + 2_000_000; // 2 ms of in-process work per answer
            while (System.nanoTime() < until) Thread.onSpinWait();
            return call("calculator", "{\"expression\": \"2 + 2\"}");
        }));
        long t0 = System.nanoTime();
        // Ignoring the deadline would take 2,000 × 2 ms = 4 s.
        Trajectory late = slow.run(Task.of("t", "slow loop"), slow.spec().withLimits(2000, 10_000_000, 10_000_000, 100, 1000));
        assertThat(late).stoppedBecause(StopReason.DEADLINE);
        assertTrue(late.stats().turns() < 1000, "stopped after " + late.stats().turns() + " turns");
        assertTrue(System.nanoTime() - t0 < Duration.ofMillis(2000).toNanos(), "the deadline was honoured");
    }

    @Test
    void aPolicyAnsweringNothingIsAPolicyError() {
        var h = harness(ScriptedPolicy.completions(req -> null));
        Trajectory t = h.run(Task.of("t", "x"));
        assertThat(t).stoppedBecause(StopReason.POLICY_ERROR);
        assertTrue(t.error().contains("no completion"), t.error());
    }

    @Test
    void failingPolicyEndsTheEpisodeWithItsMessage() {
        var h = harness(ScriptedPolicy.texts(req -> {
            throw new PolicyException("HTTP 401 from http://x/v1: invalid api key", false);
        }));
        Trajectory t = h.run(Task.of("t", "x"));
        assertThat(t).stoppedBecause(StopReason.POLICY_ERROR);
        assertTrue(t.error().contains("invalid api key"), t.error());
    }

    @Test
    void finishToolEndsWithItsAnswer() {
        var h = harness(ScriptedPolicy.replies(call("finish", "{\"answer\": \"Paris\"}")));
        assertThat(h.run(Task.of("t", "capital of France?"))).stoppedBecause(StopReason.FINAL_ANSWER).hasFinalAnswer("Paris");
    }

    @Test
    void unknownToolInTheSpecIsRejectedClearly() {
        var h = harness(ScriptedPolicy.replies("x"));
        Trajectory t = h.run(Task.of("t", "x"), h.spec().withTools(List.of("calculator", "search")));
        assertThat(t).stoppedBecause(StopReason.INVALID_REQUEST);
        assertTrue(t.error().contains("search"), t.error());
    }

    @Test
    void compressionKeepsEveryPromptWithinTheContextBudget() {
        int budget = 600;
        List<CompletionRequest> seen = new CopyOnWriteArrayList<>();
        FakeTool big = FakeTool.named("fetch", a -> ("page " + a.get("page").asText() + " ").repeat(200));
        var h = harness(ScriptedPolicy.texts(req -> {
            seen.add(req);
            return req.turn() < 8 ? call("fetch", "{\"page\": " + req.turn() + "}") : "summary done";
        }), big);
        EpisodeSpec spec = h.spec().withLimits(16, 1_000_000, budget, 10_000, 1000);
        Trajectory t = h.run(Task.of("t", "read pages 1..7 and summarise"), spec);
        assertThat(t).stoppedBecause(StopReason.FINAL_ANSWER).hasToolSuccesses(7);
        assertEquals(8, seen.size());
        for (CompletionRequest req : seen) {
            int tokens = req.messages().stream().mapToInt(ApproxTokenCounter.INSTANCE::count).sum();
            assertTrue(tokens <= budget, "turn " + req.turn() + " sent " + tokens + " tokens, budget " + budget);
            assertEquals(Role.SYSTEM, req.messages().get(0).role());
        }
        // The trajectory still holds every observation in full, and what the policy really saw where it was compressed.
        List<Turn> observations = t.turns().stream().filter(turn -> !turn.isAssistant()).toList();
        assertTrue(observations.stream().allMatch(o -> o.text().length() > 1000), "observations are kept whole");
        Turn last = t.turns().get(t.turns().size() - 1);
        assertNotNull(last.context(), "a compressed turn records the context it was given");
        assertEquals(seen.get(seen.size() - 1).messages(), last.context());
        List<Message> firstTurnContext = t.turns().get(0).context();
        assertEquals(null, firstTurnContext, "an uncompressed turn does not duplicate the history");
    }
}
