package dev.agentswarm.orchestrator.swarm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.protocol.EpisodeSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

class SwarmSettingsTest {

    private static final Set<String> NODE_TOOLS = Set.of("calculator", "python", "finish", "search");
    private static final SwarmSettings SETTINGS = SwarmSettings.fromConfig(ConfigFactory.load(), NODE_TOOLS);

    private static SubTask task(SubAgentMode mode, String... tools) {
        return new SubTask("t", "goal", mode, List.of(tools), List.of());
    }

    private static List<String> toolsOf(SwarmSettings s, SubTask t) {
        return s.subAgentSpec(t, 100, 1_000_000, 10_000_000).tools();
    }

    private static void assertRejected(String expected, Executable e) {
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, e);
        assertTrue(x.getMessage().contains(expected), "expected <" + expected + "> in: " + x.getMessage());
    }

    @Test
    void theDefaultsAreReferenceConfs() {
        assertEquals(new SwarmBudget(100, 32, 2000, 2_000_000, Duration.ofMinutes(10), Duration.ofSeconds(30)), SETTINGS.budget());
        assertEquals(2, SETTINGS.maxDepth());
        assertEquals(2, SETTINGS.retries());
        assertEquals(Duration.ofSeconds(30), SETTINGS.lostAfter());
        assertEquals(NODE_TOOLS, SETTINGS.tools(), "tools = [] means every tool the node offers");
        assertEquals(1500, SETTINGS.maxAnswerChars());
        assertEquals(8, SETTINGS.orchestratorMaxTurns());
        assertEquals(new SwarmSettings.Parl(0.3, 0.3, 200, 4), SETTINGS.parl());
        assertEquals(Map.of(SubAgentMode.SEARCH, List.of("search", "retrieve"), SubAgentMode.CODING,
                List.of("python", "code_interpreter", "bash"), SubAgentMode.GENERAL, List.of()), SETTINGS.modeTools());
        // The episodes' base is core's agentswarm.episode.
        EpisodeSpec base = SETTINGS.base();
        assertEquals("hermes", base.format());
        assertEquals(16, base.maxTurns());
        assertEquals(32000, base.tokenBudget());
        assertEquals(12000, base.contextBudget());
        assertEquals(600_000, base.deadlineMillis());
        assertEquals(30_000, base.toolTimeoutMillis());
    }

    @Test
    void theBuiltInPromptsAreLoaded() {
        assertTrue(SETTINGS.orchestratorPrompt().contains("spawn_subagents"), SETTINGS.orchestratorPrompt());
        assertEquals(Set.of(SubAgentMode.SEARCH, SubAgentMode.CODING, SubAgentMode.GENERAL), SETTINGS.prompts().keySet());
        SETTINGS.prompts().forEach((mode, prompt) -> assertFalse(prompt.isBlank(), mode + " has no prompt"));
        assertEquals(SETTINGS.orchestratorPrompt(), SETTINGS.orchestratorPrompt().strip());
        assertEquals("Custom.", SwarmSettings.orBuiltIn("Custom.", "orchestrator"), "a configured prompt is used as is");
    }

    @Test
    void spawnSubagentsIsNeverASubAgentTool() {
        SwarmSettings s = SwarmSettings.fromConfig(ConfigFactory.load(), Set.of("search", "spawn_subagents"));
        assertEquals(Set.of("search"), s.tools());
    }

    @Test
    void aSubAgentGetsItsSubTasksToolsElseItsModesElseAllAndAlwaysFinish() {
        assertEquals(List.of("python", "finish"), toolsOf(SETTINGS, task(SubAgentMode.SEARCH, "python")), "the sub-task's own");
        assertEquals(List.of("search", "finish"), toolsOf(SETTINGS, task(SubAgentMode.GENERAL, "search", "finish")), "finish once");
        assertEquals(List.of("search", "finish"), toolsOf(SETTINGS, task(SubAgentMode.SEARCH)), "the mode's the node has");
        assertEquals(List.of("python", "finish"), toolsOf(SETTINGS, task(SubAgentMode.CODING)));
        List<String> general = toolsOf(SETTINGS, task(SubAgentMode.GENERAL));
        assertEquals(NODE_TOOLS.size(), general.size(), "general: all tools, finish once: " + general);
        assertEquals(NODE_TOOLS, Set.copyOf(general));

        SwarmSettings calculatorOnly = SwarmSettings.fromConfig(ConfigFactory.load(), Set.of("calculator"));
        assertEquals(List.of("calculator", "finish"), toolsOf(calculatorOnly, task(SubAgentMode.SEARCH)),
                "none of the mode's tools on the node: all of them");
    }

    @Test
    void aSubAgentsLimitsAreCappedToWhatIsLeft() {
        SubTask t = task(SubAgentMode.SEARCH);
        EpisodeSpec roomy = SETTINGS.subAgentSpec(t, 100, 1_000_000, 10_000_000);
        assertEquals(SETTINGS.prompts().get(SubAgentMode.SEARCH), roomy.systemPrompt());
        assertEquals(16, roomy.maxTurns());
        assertEquals(32000, roomy.tokenBudget());
        assertEquals(600_000, roomy.deadlineMillis());
        assertEquals(30_000, roomy.toolTimeoutMillis());

        EpisodeSpec tight = SETTINGS.subAgentSpec(t, 3, 500, 2_000);
        assertEquals(3, tight.maxTurns());
        assertEquals(500, tight.tokenBudget());
        assertEquals(2_000, tight.deadlineMillis());
        assertEquals(2_000, tight.toolTimeoutMillis(), "no tool call outlives the episode");
        assertEquals(12000, tight.contextBudget());

        EpisodeSpec spent = SETTINGS.subAgentSpec(t, 0, 0, 0);
        assertEquals(List.of(1, 1, 1L, 1L), List.of(spent.maxTurns(), spent.tokenBudget(), spent.deadlineMillis(), spent.toolTimeoutMillis()));
    }

    @Test
    void theOrchestratorOffersOnlySpawnAndFinishAndASpawnMayTakeAllItsTime() {
        EpisodeSpec o = SETTINGS.orchestratorSpec(120_000, 5);
        assertEquals(List.of("spawn_subagents", "finish"), o.tools());
        assertEquals(SETTINGS.orchestratorPrompt(), o.systemPrompt());
        assertEquals(5, o.maxTurns());
        assertEquals(120_000, o.deadlineMillis());
        assertEquals(120_000, o.toolTimeoutMillis());
        assertEquals(32000, o.tokenBudget());
        assertEquals(1, SETTINGS.orchestratorSpec(120_000, 0).maxTurns());
    }

    @Test
    void aBudgetRejectsBadValuesSayingWhich() {
        Duration min = Duration.ofMinutes(1);
        assertRejected("max-subagents", () -> new SwarmBudget(-1, 1, 1, 1, min, Duration.ZERO));
        assertRejected("max-parallel", () -> new SwarmBudget(1, 0, 1, 1, min, Duration.ZERO));
        assertRejected("max-turns", () -> new SwarmBudget(1, 1, 0, 1, min, Duration.ZERO));
        assertRejected("max-tokens", () -> new SwarmBudget(1, 1, 1, 0, min, Duration.ZERO));
        assertRejected("deadline", () -> new SwarmBudget(1, 1, 1, 1, Duration.ZERO, Duration.ZERO));
        assertRejected("finish-reserve", () -> new SwarmBudget(1, 1, 1, 1, min, Duration.ofSeconds(-1)));
        assertRejected("finish-reserve", () -> new SwarmBudget(1, 1, 1, 1, min, min));
        new SwarmBudget(0, 1, 1, 1, min, Duration.ZERO); // no sub-agents at all is a budget
    }

    @Test
    void aReserveOverAQuarterOfTheDeadlineIsCut() {
        String block = "max-subagents = 5, max-parallel = 2, max-turns = 10, max-tokens = 100, deadline = 60s, ";
        assertEquals(new SwarmBudget(5, 2, 10, 100, Duration.ofSeconds(60), Duration.ofSeconds(15)),
                SwarmBudget.fromConfig(ConfigFactory.parseString(block + "finish-reserve = 30s")));
        assertEquals(Duration.ofSeconds(10), SwarmBudget.fromConfig(ConfigFactory.parseString(block + "finish-reserve = 10s")).finishReserve());
    }

    @Test
    void aLeaseIsWhatIsLeftWithAReserveOfAtMostAQuarterOfTheTime() {
        SwarmBudget parent = new SwarmBudget(10, 4, 100, 1000, Duration.ofMinutes(10), Duration.ofSeconds(30));
        assertEquals(new SwarmBudget(3, 4, 50, 500, Duration.ofMinutes(5), Duration.ofSeconds(30)),
                parent.lease(3, 50, 500, Duration.ofMinutes(5)));
        assertEquals(new SwarmBudget(3, 4, 50, 500, Duration.ofSeconds(60), Duration.ofSeconds(15)),
                parent.lease(3, 50, 500, Duration.ofSeconds(60)));
        assertEquals(new SwarmBudget(0, 4, 1, 1, Duration.ofMillis(1), Duration.ofMillis(1).dividedBy(4)), parent.lease(-2, 0, -5, Duration.ZERO),
                "never below 1 turn, 1 token, 1 ms; never negative sub-agents");
    }

    @Test
    void aLeaseOfTimeAlreadyPastIsTheSmallestBudget() {
        // lease turns zero and negative time into 1 ms (with a quarter of it as reserve), so a time already past leases like zero.
        SwarmBudget parent = new SwarmBudget(10, 4, 100, 1000, Duration.ofMinutes(10), Duration.ofSeconds(30));
        assertEquals(parent.lease(1, 1, 1, Duration.ZERO), parent.lease(1, 1, 1, Duration.ofSeconds(-5)));
    }

    @Test
    void settingsRejectNoDepthAndNegativeRetries() {
        assertRejected("max-depth", () -> new SwarmSettings(SETTINGS.budget(), 0, 2, SETTINGS.lostAfter(), SETTINGS.tools(),
                SETTINGS.maxAnswerChars(), SETTINGS.base(), SETTINGS.orchestratorPrompt(), SETTINGS.orchestratorMaxTurns(),
                SETTINGS.prompts(), SETTINGS.modeTools(), SETTINGS.parl()));
        assertRejected("retries", () -> new SwarmSettings(SETTINGS.budget(), 2, -1, SETTINGS.lostAfter(), SETTINGS.tools(),
                SETTINGS.maxAnswerChars(), SETTINGS.base(), SETTINGS.orchestratorPrompt(), SETTINGS.orchestratorMaxTurns(),
                SETTINGS.prompts(), SETTINGS.modeTools(), SETTINGS.parl()));
        assertRejected("parallel-target", () -> new SwarmSettings.Parl(0.3, 0.3, 200, 0));
    }
}
