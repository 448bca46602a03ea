package dev.agentswarm.environments.plugins;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.EpisodeStats;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
import dev.agentswarm.core.reward.RewardWeights;
import dev.agentswarm.environments.Noise;
import dev.agentswarm.environments.OracleRun;
import dev.agentswarm.environments.Split;
import dev.agentswarm.environments.SuiteCatalog;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PluginSuiteTest {

    private static final EpisodeSpec DEFAULTS = EpisodeSpec.fromConfig(ConfigFactory.load().getConfig("agentswarm.episode"));
    private final PluginSuite suite = (PluginSuite) SuiteCatalog.one(ConfigFactory.load(), "plugins");

    @Test
    void tasksAreSeededDisjointAndHydratableFromTheirText() throws Exception {
        List<Task> train = suite.tasks(Split.TRAIN, 150);
        assertEquals(train, suite.tasks(Split.TRAIN, 150));
        Set<String> trainPrompts = new HashSet<>();
        train.forEach(t -> trainPrompts.add(t.prompt()));
        for (Task t : suite.tasks(Split.HELDOUT, 60)) assertFalse(trainPrompts.contains(t.prompt()), t.id());
        Set<String> categories = new HashSet<>();
        for (Task t : train) {
            List<String> pool = List.of(t.metadata().get(PluginTasks.CANDIDATES).split(","));
            List<String> correct = List.of(t.metadata().get(PluginTasks.CORRECT).split(","));
            assertEquals(6, pool.size(), "seed 004's six candidates");
            assertTrue(pool.containsAll(correct), t.id());
            categories.add(t.metadata().get(PluginTasks.CATEGORY));
            JsonNode plan = Json.parse(t.answer());
            for (JsonNode step : plan.get("plugins")) {
                step.get("api_request_parameters").forEach(v -> assertTrue(t.prompt().contains(v.asText()),
                        t.id() + ": the request states " + v.asText()));
            }
        }
        assertEquals(Set.of("1_step", "2_step", "3_step", "4_step"), categories);
    }

    @Test
    void theOracleEarnsTheMaximumOnEveryTask() {
        for (Split split : Split.values()) {
            for (Task t : suite.tasks(split, 60)) {
                Trajectory done = OracleRun.run(suite, t, DEFAULTS, Noise.NONE);
                assertEquals(0.95, done.reward().components().get("plan"), 1e-9, t.id());
                assertEquals(1.0, done.reward().components().get("pass"), t.id());
                assertEquals(1.0, done.reward().components().get("deps_chain"), t.id());
            }
        }
    }

    @Test
    void aPlanThatNeverPassedTheFormatStillEarnsPartialCredit() {
        Task t = suite.tasks(Split.TRAIN, 1).get(0);
        String firstId = t.metadata().get(PluginTasks.CORRECT).split(",")[0];
        String broken = "{\"plugins\": [{\"pluginId\": \"" + firstId + "\", \"api_request_parameters\": {}}]}";
        Trajectory cutOff = new Trajectory("e", t.id(), t.id(), List.of(),
                List.of(Turn.assistant(0, Completion.ofText(broken, 0, 0), List.of(), List.of("missing fields"), null, null)),
                null, StopReason.MAX_TURNS, null, new EpisodeStats(1, 0, 0, 1, 0, 0, 0), null);
        var r = suite.open(t, "e").score(cutOff);
        assertEquals(1.0, r.components().get("json_valid"));
        assertTrue(r.components().get("plan") > 0.10 && r.components().get("plan") < 0.95, r.toString());
        assertEquals(0.0, r.components().get("pass"));
    }

    @Test
    void badConfigurationAndMalformedTasksAreRefusedClearly() {
        var unknown = assertThrows(IllegalArgumentException.class,
                () -> new PluginSuite(1, 6, 4, 2, new RewardWeights(Map.of("plna", 1.0))));
        assertTrue(unknown.getMessage().contains("plna"), unknown.getMessage());
        var steps = assertThrows(IllegalArgumentException.class, () -> new PluginSuite(1, 3, 4, 2, new RewardWeights(Map.of())));
        assertTrue(steps.getMessage().contains("max-steps"), steps.getMessage());
        var noPool = assertThrows(IllegalArgumentException.class,
                () -> suite.open(new Task("x", "p", "{\"plugins\": []}", Map.of(Task.SUITE, "plugins")), "e"));
        assertTrue(noPool.getMessage().contains("candidates"), noPool.getMessage());
    }
}
