package dev.agentswarm.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.policy.PolicyException;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.tool.CalculatorTool;
import dev.agentswarm.core.tool.FinishTool;
import dev.agentswarm.core.tool.ToolRegistry;
import dev.agentswarm.orchestrator.swarm.RoundState.State;
import dev.agentswarm.orchestrator.swarm.SwarmResult;
import dev.agentswarm.orchestrator.swarm.SwarmTrace;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** Whole swarms on scripted policies: plans, dependencies, failures, budgets, joins, nesting, replay. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SwarmTest {

    private final ActorTestKit kit = ActorTestKit.create("swarm", EpisodeHarness.TEST_CONFIG);
    private static final ToolRegistry TOOLS = ToolRegistry.of(new CalculatorTool(), new FinishTool());

    @AfterAll
    void stop() {
        kit.shutdownTestKit();
    }

    static String call(String tool, String argsJson) {
        return "<tool_call>\n{\"name\": \"" + tool + "\", \"arguments\": " + argsJson + "}\n</tool_call>";
    }

    static String spawn(String subtasksJson) {
        return call("spawn_subagents", "{\"subtasks\": " + subtasksJson + "}");
    }

    static String finish(String answer) {
        return call("finish", "{\"answer\": \"" + answer + "\"}");
    }

    /** The text the policy read last: the observation of its previous turn. */
    static String lastObservation(CompletionRequest req) {
        List<Message> m = req.messages();
        return m.get(m.size() - 1).content();
    }

    static String taskOf(CompletionRequest req) {
        return req.messages().get(1).content();
    }

    /** One scripted policy playing every agent, by the agent its episode belongs to. */
    static Policy script(Function<CompletionRequest, String> byRequest) {
        return ScriptedPolicy.texts(byRequest);
    }

    /** A sub-agent that computes {@code expr} with the calculator, then answers with the result. */
    static String calculates(CompletionRequest req, String expr) {
        return req.turn() == 1 ? call("calculator", "{\"expression\": \"" + expr + "\"}") : lastObservation(req).replaceAll("(?s).*?(-?[0-9.]+).*", "$1");
    }

    private static final String CHAIN_PLAN = """
            [{"id": "a", "goal": "Compute 2 + 3", "mode": "general", "tools": ["calculator"]},
             {"id": "b", "goal": "Compute 4 * 5", "tools": ["calculator"]},
             {"id": "c", "goal": "Add the two results", "tools": ["calculator"], "depends_on": ["a", "b"]}]""";

    /** The chain swarm: a and b in parallel, c adds their answers (read from its prompt), the orchestrator finishes with c's. */
    static String chainScript(CompletionRequest req) {
        String agent = SwarmHarness.agentOf(req.episodeId());
        return switch (agent) {
            case "root" -> req.turn() == 1 ? spawn(CHAIN_PLAN)
                    : finish(lastObservation(req).replaceAll("(?s).*\\[c\\] answer: ([0-9]+).*", "$1"));
            case "root/a" -> calculates(req, "2 + 3");
            case "root/b" -> calculates(req, "4 * 5");
            case "root/c" -> {
                String t = taskOf(req);
                String a = t.replaceAll("(?s).*\\[a\\] ([0-9]+).*", "$1");
                String b = t.replaceAll("(?s).*\\[b\\] ([0-9]+).*", "$1");
                yield calculates(req, a + " + " + b);
            }
            default -> throw new PolicyException("no script for " + agent, false);
        };
    }

    private static double time(SwarmTrace trace, String agent, String kind) {
        return trace.events().stream().filter(e -> e.path("agent").asText().equals(agent) && e.path("kind").asText().equals(kind))
                .mapToDouble(e -> e.path("t_ms").asDouble()).findFirst().orElseThrow(() -> new AssertionError("no " + kind + " of " + agent));
    }

    private static SwarmResult.SubAgent sub(SwarmResult r, String agent) {
        return r.subAgents().stream().filter(s -> s.agent().equals(agent)).findFirst().orElseThrow(() -> new AssertionError("no " + agent));
    }

    @Test
    void independentSubTasksRunInParallelAndAnswersFlowAlongTheDependencies() {
        SwarmHarness h = SwarmHarness.on(kit, script(SwarmTest::chainScript), TOOLS, "");
        SwarmTrace trace = SwarmTrace.inMemory();
        SwarmResult r = h.run("chain", Task.of("t", "What is (2 + 3) + 4 * 5?"), trace);

        assertEquals("25", r.answer(), r.toString());
        assertEquals(StopReason.FINAL_ANSWER, r.stopReason());
        assertEquals(List.of(), r.missing());
        assertNull(r.budgetExhausted());
        assertEquals(State.DONE, sub(r, "root/c").state());
        // c starts only after both of its dependencies answered, and is given their answers
        double cStart = time(trace, "root/c", "agent_started");
        assertTrue(cStart >= time(trace, "root/a", "agent_finished") && cStart >= time(trace, "root/b", "agent_finished"));
        String cTask = sub(r, "root/c").trajectories().get(0).prompt().get(1).content();
        assertTrue(cTask.contains("[a] 5") && cTask.contains("[b] 20"), cTask);
        // a and b were both started before either finished: the same stage
        assertTrue(time(trace, "root/b", "agent_started") < time(trace, "root/a", "agent_finished")
                || time(trace, "root/a", "agent_started") < time(trace, "root/b", "agent_finished"));
        // critical steps: 1 orchestrator turn + max(a, b) 2 + c 2, then the finishing turn 1; total 1 + 2 + 2 + 2 + 1
        assertEquals(6, r.metrics().criticalSteps());
        assertEquals(8, r.metrics().totalSteps());
        assertEquals(3, r.metrics().subAgents());
        assertEquals(8, r.metrics().turns());
        assertEquals(1, r.metrics().rounds());
        String observation = r.orchestrator().turns().get(1).text();
        assertTrue(observation.contains("[a] answer: 5") && observation.contains("[c] answer: 25"), observation);
        JsonNode finished = trace.events().get(trace.events().size() - 1);
        assertEquals("swarm_finished", finished.path("kind").asText());
        assertEquals(6, finished.path("metrics").path("critical_steps").asInt());
    }

    @Test
    void aCyclicPlanIsRefusedWithWhatToFixAndTheOrchestratorReplans() {
        SwarmHarness h = SwarmHarness.on(kit, script(req -> switch (SwarmHarness.agentOf(req.episodeId())) {
            case "root" -> switch (req.turn()) {
                case 1 -> spawn("[{\"id\": \"a\", \"goal\": \"x\", \"depends_on\": [\"b\"]}, {\"id\": \"b\", \"goal\": \"y\", \"depends_on\": [\"a\"]}]");
                case 2 -> lastObservation(req).contains("cycle: a → b → a") ? spawn("[{\"id\": \"a\", \"goal\": \"Compute 6 * 7\"}]") : "confused";
                default -> finish(lastObservation(req).replaceAll("(?s).*\\[a\\] answer: ([0-9]+).*", "$1"));
            };
            case "root/a" -> calculates(req, "6 * 7");
            default -> throw new PolicyException("unexpected", false);
        }), TOOLS, "");
        SwarmTrace trace = SwarmTrace.inMemory();
        SwarmResult r = h.run("cycle", Task.of("t", "What is 6 * 7?"), trace);

        assertEquals("42", r.answer());
        String refused = r.orchestrator().turns().get(1).text();
        assertTrue(refused.contains("The plan was not run") && refused.contains("the dependencies form a cycle: a → b → a"), refused);
        List<Boolean> accepted = trace.events().stream().filter(e -> e.path("kind").asText().equals("plan"))
                .map(e -> e.path("accepted").asBoolean()).toList();
        assertEquals(List.of(false, true), accepted);
        assertEquals(1, r.metrics().rounds());
        assertEquals(1, r.subAgents().size(), "a refused plan spawns nothing");
    }

    @Test
    void aFailingSubAgentIsRetriedThenReportedAndTheSwarmFinishesWithWhatItHas() {
        SwarmHarness h = SwarmHarness.on(kit, script(req -> switch (SwarmHarness.agentOf(req.episodeId())) {
            case "root" -> req.turn() == 1 ? spawn(CHAIN_PLAN) : lastObservation(req).contains("Missing: b, c.")
                    ? finish("partial: a = 5; b failed, so c could not run") : "unexpected observation";
            case "root/a" -> calculates(req, "2 + 3");
            case "root/b" -> throw new PolicyException("model server unavailable", false);
            default -> throw new PolicyException("c must not run", false);
        }), TOOLS, "agentswarm.swarm.retries = 1");
        SwarmTrace trace = SwarmTrace.inMemory();
        SwarmResult r = h.run("fail", Task.of("t", "What is (2 + 3) + 4 * 5?"), trace);

        assertEquals("partial: a = 5; b failed, so c could not run", r.answer());
        assertEquals(List.of("root/b", "root/c"), r.missing());
        SwarmResult.SubAgent b = sub(r, "root/b");
        assertEquals(State.FAILED, b.state());
        assertEquals(2, b.attempts(), "one retry");
        assertEquals(List.of(StopReason.POLICY_ERROR, StopReason.POLICY_ERROR), b.trajectories().stream().map(Trajectory::stopReason).toList());
        assertEquals(List.of("fail:root/b", "fail:root/b#2"), b.trajectories().stream().map(Trajectory::episodeId).toList(),
                "the retry is a new episode of the same agent");
        assertEquals(State.SKIPPED, sub(r, "root/c").state());
        assertTrue(sub(r, "root/c").trajectories().isEmpty(), "a skipped sub-task never runs");
        String observation = r.orchestrator().turns().get(1).text();
        assertTrue(observation.contains("[b] failed after 2 attempts: policy error") && observation.contains("[c] not run: depends on b, which failed"),
                observation);
        assertEquals(1, trace.events().stream().filter(e -> e.path("kind").asText().equals("retry")).count());
    }

    @Test
    void aRetriedSubAgentThatSucceedsCountsAsDone() {
        SwarmHarness h = SwarmHarness.on(kit, script(req -> {
            String agent = SwarmHarness.agentOf(req.episodeId());
            if (agent.equals("root/b") && SwarmHarness.attemptOf(req.episodeId()) == 1) throw new PolicyException("flaky", false);
            return chainScript(req);
        }), TOOLS, "");
        SwarmResult r = h.run("flaky", Task.of("t", "What is (2 + 3) + 4 * 5?"));
        assertEquals("25", r.answer());
        assertEquals(2, sub(r, "root/b").attempts());
        assertEquals(State.DONE, sub(r, "root/b").state());
        // b's failed attempt took a step too: critical 1 + (1 + 2) + 2 + 1
        assertEquals(7, r.metrics().criticalSteps());
    }

    /** A policy whose answers for the named agents come after a delay, so they stay running. */
    static Policy delayed(Policy inner, Map<String, Long> delayMillis) {
        return req -> {
            long d = delayMillis.getOrDefault(SwarmHarness.agentOf(req.episodeId()), 0L);
            if (d == 0) return inner.complete(req);
            return CompletableFuture.supplyAsync(() -> null, CompletableFuture.delayedExecutor(d, TimeUnit.MILLISECONDS))
                    .thenCompose(x -> inner.complete(req));
        };
    }

    @Test
    void aSpentTurnBudgetCancelsRunningSubAgentsAndTellsTheOrchestrator() {
        Policy loops = script(req -> switch (SwarmHarness.agentOf(req.episodeId())) {
            case "root" -> req.turn() == 1
                    ? spawn("[{\"id\": \"a\", \"goal\": \"count up\", \"tools\": [\"calculator\"]}, {\"id\": \"b\", \"goal\": \"count up\", \"tools\": [\"calculator\"]}]")
                    : lastObservation(req).contains("Stopped early (") ? finish("ran out of turns") : "unexpected";
            default -> call("calculator", "{\"expression\": \"" + req.turn() + " + 1\"}"); // never answers
        });
        SwarmHarness h = SwarmHarness.on(kit, delayed(loops, Map.of("root/a", 25L, "root/b", 25L)), TOOLS,
                "agentswarm.swarm.max-turns = 12\nagentswarm.episode.max-turns = 100");
        SwarmTrace trace = SwarmTrace.inMemory();
        SwarmResult r = h.run("budget", Task.of("t", "Count"), trace);

        assertEquals("ran out of turns", r.answer());
        assertEquals("turns", r.budgetExhausted());
        for (String agent : List.of("root/a", "root/b")) {
            SwarmResult.SubAgent s = sub(r, agent);
            assertEquals(State.CANCELLED, s.state(), agent);
            assertEquals(StopReason.CANCELLED, s.trajectories().get(0).stopReason(), "the episode itself was cancelled");
        }
        // Counted live and cancelled within a turn or so: each of a, b may finish the turn it was in. Without the
        // live count each would run the 11 turns left when it started (1 + 11 + 11).
        assertTrue(r.metrics().turns() >= 12 && r.metrics().turns() <= 16, "turns " + r.metrics().turns());
        assertTrue(trace.events().stream().anyMatch(e -> e.path("kind").asText().equals("budget_exhausted")
                && e.path("budget").asText().equals("turns")));
    }

    @Test
    void firstKJoinReturnsOnTheFastestAnswerAndCancelsTheStragglers() {
        Policy p = delayed(script(req -> switch (SwarmHarness.agentOf(req.episodeId())) {
            case "root" -> req.turn() == 1 ? call("spawn_subagents", "{\"subtasks\": [{\"id\": \"fast\", \"goal\": \"g\"}, "
                    + "{\"id\": \"slow1\", \"goal\": \"g\"}, {\"id\": \"slow2\", \"goal\": \"g\"}], \"join\": \"first_k\", \"k\": 1}")
                    : finish(lastObservation(req).replaceAll("(?s).*\\[fast\\] answer: ([a-z]+).*", "$1"));
            case "root/fast" -> "quick";
            default -> call("calculator", "{\"expression\": \"1 + 1\"}");
        }), Map.of("root/slow1", 200L, "root/slow2", 200L));
        SwarmHarness h = SwarmHarness.on(kit, p, TOOLS, "agentswarm.episode.max-turns = 100");
        long start = System.nanoTime();
        SwarmResult r = h.run("firstk", Task.of("t", "Anything"));
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertEquals("quick", r.answer());
        assertEquals(State.DONE, sub(r, "root/fast").state());
        assertEquals(State.CANCELLED, sub(r, "root/slow1").state());
        assertEquals(State.CANCELLED, sub(r, "root/slow2").state());
        assertEquals(List.of("root/slow1", "root/slow2"), r.missing());
        assertTrue(millis < 5_000, "stragglers were not waited for: " + millis + " ms");
        assertNull(r.budgetExhausted(), "a join is not a spent budget");
    }

    @Test
    void quorumJoinReturnsOnAMajorityAnswer() {
        Policy p = delayed(script(req -> switch (SwarmHarness.agentOf(req.episodeId())) {
            case "root" -> req.turn() == 1 ? call("spawn_subagents", "{\"subtasks\": [{\"id\": \"v1\", \"goal\": \"g\"}, "
                    + "{\"id\": \"v2\", \"goal\": \"g\"}, {\"id\": \"v3\", \"goal\": \"g\"}], \"join\": \"quorum\"}")
                    : finish(lastObservation(req).replaceAll("(?s).*Majority answer: ([A-Za-z]+).*", "$1"));
            case "root/v1", "root/v2" -> "Paris";
            default -> call("calculator", "{\"expression\": \"1 + 1\"}");
        }), Map.of("root/v3", 200L));
        SwarmResult r = SwarmHarness.on(kit, p, TOOLS, "agentswarm.episode.max-turns = 100").run("quorum", Task.of("t", "Capital of France?"));
        assertEquals("Paris", r.answer());
        assertEquals(State.CANCELLED, sub(r, "root/v3").state());
    }

    @Test
    void aNestedOrchestratorRunsItsOwnSubAgentsWithinTheDepthLimit() {
        SwarmHarness h = SwarmHarness.on(kit, script(req -> switch (SwarmHarness.agentOf(req.episodeId())) {
            case "root" -> req.turn() == 1 ? spawn("[{\"id\": \"c\", \"goal\": \"Compute 6 * 7 with helpers\", \"mode\": \"orchestrator\"}]")
                    : finish(lastObservation(req).replaceAll("(?s).*\\[c\\] answer: ([0-9]+).*", "$1"));
            case "root/c" -> switch (req.turn()) {
                case 1 -> spawn("[{\"id\": \"deeper\", \"goal\": \"split again\", \"mode\": \"orchestrator\"}]");
                case 2 -> lastObservation(req).contains("depth limit") ? spawn("[{\"id\": \"x\", \"goal\": \"Compute 6 * 7\"}]") : "no";
                default -> finish(lastObservation(req).replaceAll("(?s).*\\[x\\] answer: ([0-9]+).*", "$1"));
            };
            case "root/c/x" -> calculates(req, "6 * 7");
            default -> throw new PolicyException("unexpected " + req.episodeId(), false);
        }), TOOLS, "agentswarm.swarm.max-depth = 2");
        SwarmTrace trace = SwarmTrace.inMemory();
        SwarmResult r = h.run("nested", Task.of("t", "What is 6 * 7?"), trace);

        assertEquals("42", r.answer());
        SwarmResult.SubAgent c = sub(r, "root/c");
        assertNotNull(c.nested(), "the nested orchestrator's own result");
        assertEquals("root/c/x", c.nested().subAgents().get(0).agent());
        assertEquals(State.DONE, c.nested().subAgents().get(0).state());
        assertEquals(2, r.metrics().subAgents(), "c and x, counted up the tree");
        ObjectNode xStarted = (ObjectNode) trace.events().stream().filter(e -> e.path("agent").asText().equals("root/c/x")
                && e.path("kind").asText().equals("agent_started")).findFirst().orElseThrow();
        assertEquals("root/c", xStarted.path("parent").asText());
        assertEquals(1, trace.events().stream().filter(e -> e.path("agent").asText().equals("root/c")
                && e.path("kind").asText().equals("agent_started")).count());
        // critical steps: root 1 + c's own (3 turns + x's 2) + root's finishing turn 1
        assertEquals(7, r.metrics().criticalSteps());
    }

    @Test
    void aRecordedSwarmReplaysToTheSameTrace(@TempDir Path dir) {
        Path file = dir.resolve("swarm.jsonl");
        SwarmTrace first = SwarmTrace.inMemory();
        try (RunRecorder recorder = new RunRecorder(file)) {
            Policy recorded = recorder.wrap(delayed(script(SwarmTest::chainScript), Map.of("root/a", 3L)));
            SwarmHarness.on(kit, recorded, recorder.wrap(TOOLS), "").run("replay", Task.of("t", "What is (2 + 3) + 4 * 5?"), first);
        }
        RunRecording recording = RunRecording.load(file);
        SwarmTrace again = SwarmTrace.inMemory();
        SwarmResult r = SwarmHarness.on(kit, delayed(recording.policy(), Map.of("root/b", 3L)), recording.tools(), "")
                .run("replay", Task.of("t", "What is (2 + 3) + 4 * 5?"), again);
        assertEquals("25", r.answer());
        assertEquals(first.canonical(), again.canonical());
        assertFalse(first.canonical().isEmpty());
    }

    @Test
    void theOrchestratorReplansWhatIsMissingAndAReusedIdGetsItsOwnAgent() {
        int[] bCalls = {0};
        SwarmHarness h = SwarmHarness.on(kit, script(req -> switch (SwarmHarness.agentOf(req.episodeId())) {
            case "root" -> switch (req.turn()) {
                case 1 -> spawn("[{\"id\": \"a\", \"goal\": \"Compute 2 + 3\"}, {\"id\": \"b\", \"goal\": \"Compute 4 * 5\"}]");
                case 2 -> lastObservation(req).contains("Missing: b.") ? spawn("[{\"id\": \"b\", \"goal\": \"Compute 4 * 5, again\"}]") : "no";
                default -> finish(lastObservation(req).replaceAll("(?s).*\\[b\\] answer: ([0-9]+).*", "$1"));
            };
            case "root/a" -> calculates(req, "2 + 3");
            case "root/b" -> throw new PolicyException("down in round 1", false);
            case "root/b@2" -> calculates(req, "4 * 5");
            default -> throw new PolicyException("unexpected " + req.episodeId(), false);
        }), TOOLS, "agentswarm.swarm.retries = 0");
        SwarmResult r = h.run("replan", Task.of("t", "What is 4 * 5?"));
        assertEquals("20", r.answer());
        assertEquals(2, r.metrics().rounds());
        assertEquals(State.FAILED, sub(r, "root/b").state());
        assertEquals(State.DONE, sub(r, "root/b@2").state());
        assertEquals(2, sub(r, "root/b@2").round());
        assertEquals(List.of("root/b"), r.missing(), "round 1's b is still missing; the re-plan's answered");
        assertEquals(3, r.metrics().subAgents());
        // critical steps: 1 + max(a 2, b 1) + 1 + b@2 2 + 1
        assertEquals(7, r.metrics().criticalSteps());
    }

    @Test
    void maxParallelBoundsHowManySubAgentsRunAtOnce() {
        java.util.concurrent.atomic.AtomicInteger now = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger most = new java.util.concurrent.atomic.AtomicInteger();
        Policy counting = req -> {
            String agent = SwarmHarness.agentOf(req.episodeId());
            if (agent.equals("root")) {
                return CompletableFuture.completedFuture(Completion.ofText(req.turn() == 1
                        ? spawn("[{\"id\": \"a\", \"goal\": \"g\"}, {\"id\": \"b\", \"goal\": \"g\"}, {\"id\": \"c\", \"goal\": \"g\"}, "
                                + "{\"id\": \"d\", \"goal\": \"g\"}]") : finish("done"), 10, 10));
            }
            most.accumulateAndGet(now.incrementAndGet(), Math::max);
            return CompletableFuture.supplyAsync(() -> {
                now.decrementAndGet();
                return Completion.ofText("ok", 10, 1);
            }, CompletableFuture.delayedExecutor(50, TimeUnit.MILLISECONDS));
        };
        SwarmTrace trace = SwarmTrace.inMemory();
        SwarmResult r = SwarmHarness.on(kit, counting, TOOLS, "agentswarm.swarm.max-parallel = 2").run("parallel", Task.of("t", "x"), trace);
        assertEquals("done", r.answer());
        assertEquals(List.of(), r.missing());
        assertEquals(2, most.get(), "two sub-agents at a time, never more, and not one at a time");
    }

    @Test
    void theDeadlineStopsSubAgentsInTimeForTheOrchestratorToAnswerWithWhatItHas() {
        Policy p = delayed(script(req -> switch (SwarmHarness.agentOf(req.episodeId())) {
            case "root" -> req.turn() == 1 ? spawn("[{\"id\": \"quick\", \"goal\": \"g\"}, {\"id\": \"slow\", \"goal\": \"g\"}]")
                    : finish(lastObservation(req).contains("deadline") ? "partial: " + lastObservation(req).replaceAll("(?s).*\\[quick\\] answer: ([a-z]+).*", "$1")
                            : "unexpected");
            case "root/quick" -> "fast";
            default -> call("calculator", "{\"expression\": \"1 + 1\"}");
        }), Map.of("root/slow", 100L));
        long start = System.nanoTime();
        SwarmResult r = SwarmHarness.on(kit, p, TOOLS, """
                agentswarm.swarm { deadline = 3 seconds, finish-reserve = 1 second }
                agentswarm.episode.max-turns = 1000
                """).run("deadline", Task.of("t", "x"));
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals("partial: fast", r.answer());
        assertEquals("deadline", r.budgetExhausted());
        assertEquals(State.CANCELLED, sub(r, "root/slow").state());
        assertEquals(List.of("root/slow"), r.missing());
        assertTrue(millis >= 1_800 && millis < 3_000, "sub-agents stopped at deadline - reserve, the answer came before the deadline: " + millis);
    }

    @Test
    void aSubAgentWhoseNodeNeverAnswersIsTakenAsLostAndRetried() {
        SwarmHarness h = SwarmHarness.on(kit, script(SwarmTest::chainScript), TOOLS, """
                agentswarm.swarm.lost-after = 300 ms
                agentswarm.episode.deadline = 500 ms
                """);
        // The first attempt of b goes nowhere, as if its node died with it.
        SwarmResult r = h.runVia("lost", Task.of("t", "What is (2 + 3) + 4 * 5?"), SwarmTrace.inMemory(),
                run -> !run.episodeId().equals("lost:root/b"));
        assertEquals("25", r.answer());
        SwarmResult.SubAgent b = sub(r, "root/b");
        assertEquals(2, b.attempts());
        assertEquals(StopReason.CRASHED, b.trajectories().get(0).stopReason());
        assertTrue(b.trajectories().get(0).error().contains("its node may have died"), b.trajectories().get(0).error());
    }

    @Test
    void subAgentsOfASuiteTaskGetItsEnvironmentAndOnlyTheOrchestratorIsScored() {
        // A MuSiQue question brings its own paragraphs: a search sub-agent searches them, as the question's own episode would.
        var root = com.typesafe.config.ConfigFactory.parseString("agentswarm.environments.musique.heldout-path = "
                + "\"../environments/src/test/resources/musique/dev-sample.jsonl\"").withFallback(com.typesafe.config.ConfigFactory.load());
        var musique = dev.agentswarm.environments.SuiteCatalog.one(root, "musique");
        var suites = new dev.agentswarm.environments.Suites(List.of(musique));
        Task question = musique.tasks(dev.agentswarm.environments.Split.HELDOUT, 1).get(0);
        String words = question.prompt().replaceAll("[^A-Za-z ]", " ").trim().replaceAll(" +", " ");
        SwarmHarness h = SwarmHarness.on(kit, script(req -> switch (SwarmHarness.agentOf(req.episodeId())) {
            case "root" -> req.turn() == 1 ? spawn("[{\"id\": \"s\", \"goal\": \"Find the passages\", \"mode\": \"search\"}]")
                    : finish(question.answer());
            case "root/s" -> req.turn() == 1 ? call("search", "{\"query\": \"" + words + "\"}") : "found them";
            default -> throw new PolicyException("unexpected", false);
        }), ToolRegistry.of(suites.tools()).plus(new FinishTool()), suites, "");
        SwarmResult r = h.run("suite", question);

        Trajectory s = sub(r, "root/s").trajectories().get(0);
        String observation = s.turns().get(1).text();
        assertTrue(observation.contains("<tool_response>") && !observation.toLowerCase(java.util.Locale.ROOT).contains("error"),
                "searched the question's own paragraphs: " + observation);
        assertEquals(question.id(), s.taskId(), "a part of the question, with its id");
        assertNull(s.reward(), "a sub-agent is not scored: the task's reward judges the whole answer");
        assertNotNull(r.orchestrator().reward(), "the orchestrator's answer is scored by the suite");
        assertEquals(1.0, r.orchestrator().reward().components().get("f1"), r.orchestrator().reward().toString());
    }
}
