package dev.agentswarm.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.environment.TaskEnvironment;
import dev.agentswarm.core.environment.TaskEnvironments;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.tool.ToolRegistry;
import dev.agentswarm.environments.Noise;
import dev.agentswarm.environments.OraclePolicy;
import dev.agentswarm.environments.Split;
import dev.agentswarm.environments.Suite;
import dev.agentswarm.environments.SuiteCatalog;
import dev.agentswarm.environments.Suites;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.Executor;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Episodes of suite tasks through the real episode loop: their environment opens, scores and closes. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SuiteEpisodeTest {

    private final ActorTestKit kit = ActorTestKit.create("suites", EpisodeHarness.TEST_CONFIG);

    @AfterAll
    void stop() {
        kit.shutdownTestKit();
    }

    @Test
    void theOracleThroughTheEpisodeLoopPassesEveryArithmeticTask() {
        Suite arithmetic = SuiteCatalog.one(ConfigFactory.load(), "arithmetic");
        Suites suites = new Suites(List.of(arithmetic));
        List<Task> tasks = arithmetic.tasks(Split.HELDOUT, 20);
        EpisodeSpec spec = arithmetic.spec(EpisodeSpec.fromConfig(ConfigFactory.load().getConfig("agentswarm.episode")));
        Map<String, Task> byEpisode = new HashMap<>();
        List<String> ids = tasks.stream().map(t -> "e-" + t.id()).toList();
        for (int i = 0; i < tasks.size(); i++) byEpisode.put(ids.get(i), tasks.get(i));
        OraclePolicy oracle = new OraclePolicy(arithmetic, spec.format(), byEpisode::get, Noise.NONE);
        EpisodeHarness h = EpisodeHarness.on(kit, oracle, ToolRegistry.of(suites.tools()), suites);
        for (Trajectory t : h.runAll(ids, tasks, spec)) {
            assertEquals(StopReason.FINAL_ANSWER, t.stopReason(), t.error());
            assertNotNull(t.reward(), "scored on the node that ran it");
            assertEquals(1.0, t.reward().components().get("pass"), t.taskId() + " answered " + t.finalAnswer());
        }
    }

    @Test
    void aBfclQuestionOffersItsOwnFunctionsAndTheCallsAreTheAnswer() {
        var root = ConfigFactory.parseString("agentswarm.environments.bfcl.data-dir = \"../environments/src/test/resources/bfcl\"\n"
                + "agentswarm.environments.bfcl.categories = [simple_python, irrelevance]").withFallback(ConfigFactory.load());
        Suite bfcl = SuiteCatalog.one(root, "bfcl");
        Suites suites = new Suites(List.of(bfcl));
        EpisodeSpec spec = bfcl.spec(EpisodeSpec.fromConfig(root.getConfig("agentswarm.episode")));
        List<Task> tasks = bfcl.tasks(Split.HELDOUT, 100);
        Task triangle = tasks.stream().filter(t -> t.id().equals("simple_python_0")).findFirst().orElseThrow();
        Task irrelevant = tasks.stream().filter(t -> t.id().equals("irrelevance_0")).findFirst().orElseThrow();
        Map<String, String> systemSeen = new java.util.concurrent.ConcurrentHashMap<>();
        Map<String, String> replies = Map.of(
                "right", "<tool_call>\n{\"name\": \"calculate_triangle_area\", \"arguments\": {\"base\": 10, \"height\": 5}}\n</tool_call>",
                "wrong", "<tool_call>\n{\"name\": \"calculate_triangle_area\", \"arguments\": {\"base\": 10.5, \"height\": 5}}\n</tool_call>",
                "words", "No function here computes the area of a triangle.");
        ScriptedPolicy policy = ScriptedPolicy.texts(req -> {
            systemSeen.put(req.episodeId(), req.messages().get(0).content());
            return replies.get(req.episodeId().substring(0, req.episodeId().indexOf('-')));
        });
        EpisodeHarness h = EpisodeHarness.on(kit, policy, ToolRegistry.of(suites.tools()), suites);
        List<Trajectory> done = h.runAll(List.of("right-1", "wrong-1", "words-1"), List.of(triangle, triangle, irrelevant), spec);
        Trajectory right = done.get(0);
        assertEquals(StopReason.FINAL_ANSWER, right.stopReason(), right.error());
        assertEquals("[{\"calculate_triangle_area\":{\"base\":10,\"height\":5}}]", right.finalAnswer());
        assertEquals(1, right.turns().size(), "the calls are not run: no observation follows");
        assertEquals(1.0, right.reward().components().get("pass"));
        assertTrue(systemSeen.get("right-1").contains("calculate_triangle_area") && systemSeen.get("right-1").contains("Python 3 syntax"),
                "the question's function is offered: " + systemSeen.get("right-1"));
        assertTrue(!systemSeen.get("words-1").contains("calculate_triangle_area"), "each question offers its own functions");
        assertEquals(Map.of("pass", 0.0, "fail:type_error:simple", 1.0), done.get(1).reward().components());
        assertEquals(StopReason.FINAL_ANSWER, done.get(2).stopReason());
        assertEquals(1.0, done.get(2).reward().components().get("pass"), "no call is the right answer to an irrelevant question");
    }

    @Test
    void aTau2EpisodeIsAConversationTheSimulatedUserCloses() {
        var root = ConfigFactory.parseString("agentswarm.environments.tau2-mock.data-dir = \"../../shared/data/tau2/mock\"")
                .withFallback(ConfigFactory.load());
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isDirectory(java.nio.file.Path.of("../../shared/data/tau2/mock")),
                "../shared/data/tau2 is not beside the repository");
        Suite mock = SuiteCatalog.one(root, "tau2-mock");
        Suites suites = new Suites(List.of(mock));
        EpisodeSpec spec = mock.spec(EpisodeSpec.fromConfig(root.getConfig("agentswarm.episode")));
        Task task = mock.tasks(Split.HELDOUT, 100).stream().filter(t -> t.id().equals("tau2-mock-update_task_1")).findFirst().orElseThrow();
        List<List<dev.agentswarm.core.protocol.Message>> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        ScriptedPolicy agent = ScriptedPolicy.texts(req -> {
            seen.add(req.messages());
            return switch (req.turn()) {
                case 1 -> "<tool_call>\n{\"name\": \"update_task_status\", \"arguments\": {\"task_id\": \"task_1\", \"status\": \"completed\"}}\n</tool_call>";
                default -> "Your task task_1 is now completed.";
            };
        });
        Trajectory t = EpisodeHarness.on(kit, agent, ToolRegistry.of(suites.tools()), suites).runAll(List.of("talk-1"), List.of(task), spec).get(0);
        assertEquals(StopReason.USER_STOP, t.stopReason(), t.error());
        List<dev.agentswarm.core.protocol.Message> first = seen.get(0);
        assertEquals("Hi! How can I help you today?", first.get(1).content(), "the agent greets first");
        assertEquals(dev.agentswarm.core.protocol.Role.USER, first.get(2).role());
        assertTrue(first.stream().noneMatch(m -> m.content().contains("Instructions:")), "the user's brief is not the agent's to see");
        assertTrue(first.get(0).content().contains("<policy>"), "the domain's policy is the agent's system prompt");
        assertTrue(t.turns().get(t.turns().size() - 1).text().contains("###STOP###"), "the user closed it");
        assertEquals(1.0, t.reward().components().get("db"));
        assertEquals(1.0, t.reward().components().get("pass"));
        assertEquals("Your task task_1 is now completed.", t.finalAnswer());

        ScriptedPolicy wrong = ScriptedPolicy.texts(req -> req.turn() == 1
                ? "<tool_call>\n{\"name\": \"update_task_status\", \"arguments\": {\"task_id\": \"task_1\", \"status\": \"cancelled\"}}\n</tool_call>"
                : "Done.");
        Trajectory w = EpisodeHarness.on(kit, wrong, ToolRegistry.of(suites.tools()), suites).runAll(List.of("talk-2"), List.of(task), spec).get(0);
        assertEquals(0.0, w.reward().components().get("db"), "a wrong status is a different database");
        assertEquals(0.0, w.reward().total());

        // What the agent says in the turn that also calls a tool is said, for τ²'s communicate check as for τ².
        Task told = mock.tasks(Split.HELDOUT, 100).stream().filter(x -> x.id().equals("tau2-mock-update_task_with_initialization_data"))
                .findFirst().orElseThrow();
        ScriptedPolicy saysAndCalls = ScriptedPolicy.texts(req -> req.turn() == 1
                ? "The agent acknowledged the previous context, and the agent confirmed the task status was updated successfully.\n"
                  + "<tool_call>\n{\"name\": \"update_task_status\", \"arguments\": {\"task_id\": \"task_2\", \"status\": \"completed\"}}\n</tool_call>"
                : "Done.");
        Trajectory c = EpisodeHarness.on(kit, saysAndCalls, ToolRegistry.of(suites.tools()), suites).runAll(List.of("talk-3"), List.of(told), spec).get(0);
        assertEquals(1.0, c.reward().components().get("communicate"), c.reward().components().toString());
        assertEquals(1.0, c.reward().total());

        // An agent stuck on a failing call is stopped where τ²'s orchestrator stops it: the tenth failed call, not max-turns.
        ScriptedPolicy stuck = ScriptedPolicy.texts(req ->
                "<tool_call>\n{\"name\": \"update_task_status\", \"arguments\": {\"task_id\": \"task_99\", \"status\": \"completed\"}}\n</tool_call>");
        Trajectory s = EpisodeHarness.on(kit, stuck, ToolRegistry.of(suites.tools()), suites).runAll(List.of("talk-4"), List.of(task), spec).get(0);
        assertEquals(StopReason.TASK_LIMIT, s.stopReason(), s.error());
        assertEquals("τ²'s limit of 10 failed tool calls reached", s.error());
        assertEquals(10, s.stats().toolCalls());
        assertEquals(0.0, s.reward().total());
    }

    /** Every task's episode converses with {@code partner} and is scored nothing. */
    private static TaskEnvironments conversingWith(dev.agentswarm.core.environment.ConversationPartner partner) {
        return (task, episodeId) -> Optional.of(new TaskEnvironment() {
            @Override
            public dev.agentswarm.core.environment.ConversationPartner partner() {
                return partner;
            }

            @Override
            public RewardBreakdown score(Trajectory trajectory) {
                return RewardBreakdown.NONE;
            }

            @Override
            public void close() {}
        });
    }

    @Test
    void anEpisodeWhoseUserNeverAnswersEndsAtItsDeadlineAndStopsWaiting() {
        CompletableFuture<dev.agentswarm.core.environment.ConversationPartner.Reply> never = new CompletableFuture<>();
        TaskEnvironments silent = conversingWith(new dev.agentswarm.core.environment.ConversationPartner() {
            @Override
            public String greeting() {
                return "Hello.";
            }

            @Override
            public CompletionStage<Reply> reply(String agentMessage) {
                return never;
            }
        });
        EpisodeSpec base = EpisodeSpec.fromConfig(ConfigFactory.load().getConfig("agentswarm.episode")).withTools(List.of());
        EpisodeSpec quick = base.withLimits(base.maxTurns(), base.tokenBudget(), base.contextBudget(), 300, base.toolTimeoutMillis());
        Trajectory t = EpisodeHarness.on(kit, ScriptedPolicy.replies("never asked"), ToolRegistry.of(), silent)
                .runAll(List.of("silent-1"), List.of(Task.of("x", "brief")), quick).get(0);
        assertEquals(StopReason.DEADLINE, t.stopReason());
        assertTrue(never.isCancelled(), "the wait for the user was given up");
    }

    @Test
    void aSimulatedUserThatFailsEndsTheEpisodeSayingSo() {
        TaskEnvironments failing = conversingWith(new dev.agentswarm.core.environment.ConversationPartner() {
            @Override
            public String greeting() {
                return "Hello.";
            }

            @Override
            public CompletionStage<Reply> reply(String agentMessage) {
                return CompletableFuture.failedFuture(new IllegalStateException("the user model is down"));
            }
        });
        Trajectory t = EpisodeHarness.on(kit, ScriptedPolicy.replies("never asked"), ToolRegistry.of(), failing)
                .runAll(List.of("down-1"), List.of(Task.of("x", "brief")),
                        EpisodeSpec.fromConfig(ConfigFactory.load().getConfig("agentswarm.episode")).withTools(List.of()))
                .get(0);
        assertEquals(StopReason.POLICY_ERROR, t.stopReason());
        assertTrue(t.error().contains("the simulated user failed: the user model is down"), t.error());
    }

    @Test
    void searchEpisodesOfTwoSuitesOnOneNodeEachSearchTheirOwnCorpus() {
        // One node offers multihop and MuSiQue: one `search` tool, routed by each episode's suite;
        // four samples of each MuSiQue question run at once and share its index.
        var root = ConfigFactory.parseString("agentswarm.environments.musique.heldout-path = "
                + "\"../environments/src/test/resources/musique/dev-sample.jsonl\"").withFallback(ConfigFactory.load());
        Suite world = SuiteCatalog.one(root, "multihop");
        Suite musique = SuiteCatalog.one(root, "musique");
        Suites suites = new Suites(List.of(world, musique));
        EpisodeSpec defaults = EpisodeSpec.fromConfig(root.getConfig("agentswarm.episode"));
        for (Suite suite : List.of(world, musique)) {
            List<Task> tasks = new java.util.ArrayList<>();
            for (Task t : suite.tasks(Split.HELDOUT, 10)) for (int k = 0; k < 4; k++) tasks.add(t);
            Map<String, Task> byEpisode = new HashMap<>();
            List<String> ids = new java.util.ArrayList<>();
            for (int i = 0; i < tasks.size(); i++) {
                ids.add("e-" + suite.name() + "-" + i);
                byEpisode.put(ids.get(i), tasks.get(i));
            }
            EpisodeSpec spec = suite.spec(defaults);
            OraclePolicy oracle = new OraclePolicy(suite, spec.format(), byEpisode::get, Noise.NONE);
            EpisodeHarness h = EpisodeHarness.on(kit, oracle, ToolRegistry.of(suites.tools()), suites);
            for (Trajectory t : h.runAll(ids, tasks, spec)) {
                assertEquals(StopReason.FINAL_ANSWER, t.stopReason(), t.error());
                assertEquals(1.0, t.reward().components().get("f1"), t.taskId() + " answered " + t.finalAnswer());
                assertEquals(1.0, t.reward().components().get("support_f1"), t.taskId() + " answered " + t.finalAnswer());
            }
        }
    }

    @Test
    void aTaskOfAnUnknownSuiteIsRefusedWithTheKnownOnes() {
        Suites suites = new Suites(List.of(SuiteCatalog.one(ConfigFactory.load(), "arithmetic")));
        EpisodeHarness h = EpisodeHarness.on(kit, ScriptedPolicy.replies("42"), ToolRegistry.of(suites.tools()), suites);
        Trajectory t = h.run(new Task("t", "q", "42", Map.of(Task.SUITE, "chess")));
        assertEquals(StopReason.INVALID_REQUEST, t.stopReason());
        assertTrue(t.error().contains("chess") && t.error().contains("arithmetic"), t.error());
    }

    @Test
    void aTaskWhoseToolsTheNodeLacksIsRefusedByName() {
        Suite world = SuiteCatalog.one(ConfigFactory.load(), "multihop");
        Suites suites = new Suites(List.of(world));
        // The node's registry has the calculator only: the suite's search tool is not offered.
        EpisodeHarness h = EpisodeHarness.on(kit, ScriptedPolicy.replies("x"),
                ToolRegistry.of(List.of(new dev.agentswarm.core.tool.CalculatorTool())), suites);
        Task task = world.tasks(Split.HELDOUT, 1).get(0);
        EpisodeSpec spec = world.spec(EpisodeSpec.fromConfig(ConfigFactory.load().getConfig("agentswarm.episode")));
        Trajectory t = h.runAll(List.of("no-search"), List.of(task), spec).get(0);
        assertEquals(StopReason.INVALID_REQUEST, t.stopReason());
        assertTrue(t.error().contains("unknown tool(s) [search]") && t.error().contains("calculator"), t.error());
    }

    @Test
    void aFailingScorerIsReportedAndTheEnvironmentStillCloses() {
        AtomicInteger open = new AtomicInteger();
        TaskEnvironments failing = (task, episode) -> {
            open.incrementAndGet();
            return Optional.of(new TaskEnvironment() {
                @Override
                public RewardBreakdown score(Trajectory trajectory) {
                    throw new IllegalStateException("table hash unavailable");
                }

                @Override
                public void close() {
                    open.decrementAndGet();
                }
            });
        };
        EpisodeHarness h = EpisodeHarness.on(kit, ScriptedPolicy.replies("42"), ToolRegistry.of(), failing);
        Trajectory t = h.run(new Task("t", "q", "42", Map.of(Task.SUITE, "any")));
        assertEquals(StopReason.FINAL_ANSWER, t.stopReason(), "the episode's own result is kept");
        assertEquals("42", t.finalAnswer());
        assertTrue(t.error().contains("reward failed") && t.error().contains("table hash unavailable"), t.error());
        assertNull(t.reward(), "no reward of 0 the policy did not earn");
        assertEquals(dev.agentswarm.core.protocol.InfraFailure.SCORER_FAILED, t.infraFailure());
        assertEquals(0, open.get(), "closed after scoring");
    }

    @Test
    void aScorerThatAnswersLaterIsAwaitedAndOneThatFailsLaterIsReported() {
        AtomicInteger open = new AtomicInteger();
        TaskEnvironments later = (task, episode) -> {
            open.incrementAndGet();
            return Optional.of(new TaskEnvironment() {
                @Override
                public RewardBreakdown score(Trajectory trajectory) {
                    throw new AssertionError("the episode must use scoreAsync");
                }

                @Override
                public CompletionStage<RewardBreakdown> scoreAsync(Trajectory trajectory) {
                    Executor inAMoment = CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS);
                    return CompletableFuture.supplyAsync(() -> {
                        if (trajectory.finalAnswer().equals("boom")) throw new IllegalStateException("tests did not run");
                        return new RewardBreakdown(Map.of("tests_passed", 0.75), 0.75);
                    }, inAMoment);
                }

                @Override
                public void close() {
                    open.decrementAndGet();
                }
            });
        };
        EpisodeHarness scored = EpisodeHarness.on(kit, ScriptedPolicy.replies("42"), ToolRegistry.of(), later);
        Trajectory t = scored.run(new Task("t", "q", "42", Map.of(Task.SUITE, "any")));
        assertEquals(0.75, t.reward().total(), 1e-9);
        assertNull(t.error());
        EpisodeHarness failing = EpisodeHarness.on(kit, ScriptedPolicy.replies("boom"), ToolRegistry.of(), later);
        Trajectory f = failing.run(new Task("t", "q", "42", Map.of(Task.SUITE, "any")));
        assertTrue(f.error().contains("reward failed: tests did not run"), f.error());
        assertNull(f.reward());
        assertEquals(dev.agentswarm.core.protocol.InfraFailure.SCORER_FAILED, f.infraFailure());
        assertEquals(0, open.get(), "both closed after scoring");
    }

    @Test
    void aScorerThatNeverAnswersFailsTheRewardAtTheToolTimeoutAndTheEpisodeStillEnds() {
        TaskEnvironments never = (task, episode) -> Optional.of(new TaskEnvironment() {
            @Override
            public RewardBreakdown score(Trajectory trajectory) {
                throw new AssertionError("the episode must use scoreAsync");
            }

            @Override
            public CompletionStage<RewardBreakdown> scoreAsync(Trajectory trajectory) {
                return new CompletableFuture<>(); // a grader stuck for good
            }

            @Override
            public void close() {}
        });
        EpisodeHarness h = EpisodeHarness.on(kit, ScriptedPolicy.replies("42"), ToolRegistry.of(), never);
        EpisodeSpec spec = EpisodeSpec.fromConfig(ConfigFactory.load().getConfig("agentswarm.episode")).withTools(List.of());
        spec = spec.withLimits(spec.maxTurns(), spec.tokenBudget(), spec.contextBudget(), spec.deadlineMillis(), 300);
        Trajectory t = h.runAll(List.of("stuck"), List.of(new Task("t", "q", "42", Map.of(Task.SUITE, "any"))), spec).get(0);
        assertEquals("42", t.finalAnswer(), t.toString());
        assertTrue(t.error().contains("scoring did not finish within tool-timeout (300 ms)"), t.error());
    }

    @Test
    void tasksWithoutASuiteRunAsBeforeWithNoReward() {
        EpisodeHarness h = EpisodeHarness.on(kit, ScriptedPolicy.replies("42"), ToolRegistry.of(), TaskEnvironments.NONE);
        Trajectory t = h.run(Task.of("t", "q"));
        assertEquals(StopReason.FINAL_ANSWER, t.stopReason());
        assertNull(t.reward());
    }
}
