package dev.agentswarm.environments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.environment.TaskEnvironment;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.core.tool.ToolContext;
import dev.agentswarm.core.tool.ToolSpecs;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

class SuitesTest {

    private static final ToolSpec SEARCH = ToolSpecs.oneString("search", "Search.", "query", "words");

    /** A suite whose {@code search} answers with the suite's name and the episode's own state. */
    private static Suite named(String name, ToolSpec spec) {
        EpisodeStates<String> states = new EpisodeStates<>(name);
        Tool search = new Tool() {
            @Override
            public ToolSpec spec() {
                return spec;
            }

            @Override
            public CompletionStage<String> invoke(com.fasterxml.jackson.databind.JsonNode arguments, ToolContext context) {
                return CompletableFuture.completedFuture(name + ":" + states.get(context.episodeId()));
            }
        };
        return new Suite() {
            public String name() {
                return name;
            }

            public String description() {
                return name;
            }

            public List<Task> tasks(Split split, int limit) {
                return List.of();
            }

            public EpisodeSpec spec(EpisodeSpec defaults) {
                return defaults;
            }

            public List<Tool> tools() {
                return List.of(search);
            }

            public TaskEnvironment open(Task task, String episodeId) {
                states.put(episodeId, task.id());
                return new TaskEnvironment() {
                    public RewardBreakdown score(Trajectory t) {
                        return RewardBreakdown.NONE;
                    }

                    public CompletionStage<RewardBreakdown> scoreAsync(Trajectory t) {
                        return GRADED_LATER; // e.g. hidden tests still running in a sandbox
                    }

                    public void close() {
                        states.remove(episodeId);
                    }
                };
            }
        };
    }

    private static final CompletableFuture<RewardBreakdown> GRADED_LATER = new CompletableFuture<>();

    @Test
    void anEpisodesEnvironmentScoresAsynchronouslyWhenItsSuiteDoes() {
        Suites suites = new Suites(List.of(named("musique", SEARCH)));
        TaskEnvironment env = suites.open(new Task("q", "p", "a", Map.of(Task.SUITE, "musique")), "e").orElseThrow();
        Trajectory t = Trajectory.notRun("e", "g", "q", dev.agentswarm.core.protocol.StopReason.CANCELLED, "x");
        assertSame(GRADED_LATER, env.scoreAsync(t), "not the blocking default that calls score()");
        env.close();
    }

    private static String call(Tool tool, String episode) {
        ObjectNode args = Json.object();
        args.put("query", "x");
        return tool.invoke(args, new ToolContext(episode, 1, 0, "c", 1000)).toCompletableFuture().join();
    }

    @Test
    void aToolNameSharedBySuitesReachesTheCallingEpisodesSuite() {
        Suites suites = new Suites(List.of(named("musique", SEARCH), named("hotpotqa", SEARCH)));
        assertEquals(1, suites.tools().size(), "one node tool for the shared name");
        Tool search = suites.tools().get(0);
        try (var a = suites.open(new Task("q1", "p", null, Map.of(Task.SUITE, "musique")), "ep-a").orElseThrow();
             var b = suites.open(new Task("q2", "p", null, Map.of(Task.SUITE, "hotpotqa")), "ep-b").orElseThrow()) {
            assertEquals("musique:q1", call(search, "ep-a"));
            assertEquals("hotpotqa:q2", call(search, "ep-b"));
        }
        var closed = assertThrows(CompletionException.class, () -> call(search, "ep-a"));
        assertTrue(closed.getCause().getMessage().contains("ep-a"), closed.getCause().getMessage());
    }

    @Test
    void sharedNamesWithDifferentSchemasAreRefused() {
        ToolSpec other = ToolSpecs.oneString("search", "Search differently.", "q", "words");
        Suites suites = new Suites(List.of(named("a", SEARCH), named("b", other)));
        var e = assertThrows(IllegalArgumentException.class, suites::tools);
        assertTrue(e.getMessage().contains("different schemas"), e.getMessage());
    }

    @Test
    void unknownSuitesAndBadConfigurationAreNamed() {
        var unknown = assertThrows(IllegalArgumentException.class, () -> SuiteCatalog.one(ConfigFactory.load(), "chess"));
        assertTrue(unknown.getMessage().contains("chess") && unknown.getMessage().contains("arithmetic"), unknown.getMessage());
        var bad = assertThrows(IllegalArgumentException.class, () -> SuiteCatalog.one(ConfigFactory.parseString(
                "agentswarm.environments.arithmetic.max-ops = lots").withFallback(ConfigFactory.load()), "arithmetic"));
        assertTrue(bad.getMessage().contains("arithmetic") && bad.getMessage().contains("max-ops"), bad.getMessage());
        var weight = assertThrows(IllegalArgumentException.class, () -> SuiteCatalog.one(ConfigFactory.parseString(
                "agentswarm.environments.plugins.reward.plan = high").withFallback(ConfigFactory.load()), "plugins"));
        assertTrue(weight.getMessage().contains("plan"), weight.getMessage());
        assertEquals(List.of("arithmetic", "plugins", "multihop", "sql", "code"),
                SuiteCatalog.fromConfig(ConfigFactory.load()).all().stream().map(Suite::name).toList());
    }

    @Test
    void anEpisodeCannotOpenTwice() {
        EpisodeStates<String> states = new EpisodeStates<>("sql");
        states.put("e", "db");
        assertThrows(IllegalStateException.class, () -> states.put("e", "db2"));
        var missing = assertThrows(IllegalStateException.class, () -> states.get("other"));
        assertTrue(missing.getMessage().contains("sql"), missing.getMessage());
    }
}
