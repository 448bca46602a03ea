package dev.agentswarm.environments.multihop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.tool.ToolContext;
import dev.agentswarm.environments.Noise;
import dev.agentswarm.environments.OracleRun;
import dev.agentswarm.environments.Split;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class MultihopSuiteTest {

    private static final Config ROOT = ConfigFactory.load();
    private static final Config BLOCK = ROOT.getConfig("agentswarm.environments.multihop");
    private static final EpisodeSpec DEFAULTS = EpisodeSpec.fromConfig(ROOT.getConfig("agentswarm.episode"));
    private final MultihopSuite suite = MultihopSuite.fromConfig(BLOCK);

    @Test
    void theSameSeedGivesTheSameWorldAndTasksAndTheSplitsAreDisjoint() {
        List<Task> train = suite.tasks(Split.TRAIN, 400);
        assertEquals(train, MultihopSuite.fromConfig(BLOCK).tasks(Split.TRAIN, 400), "a second suite from the same seed");
        assertEquals(train.subList(0, 30), suite.tasks(Split.TRAIN, 30), "a smaller draw is a prefix");
        Set<String> questions = new HashSet<>();
        Map<String, Integer> hops = new TreeMap<>();
        for (Task t : train) {
            assertTrue(questions.add(t.prompt()), "questions are distinct: " + t.prompt());
            hops.merge(t.metadata().get(HopTask.HOPS), 1, Integer::sum);
        }
        assertEquals(Set.of("2", "3", "4"), hops.keySet(), "2 to 4 hops: " + hops);
        for (Task t : suite.tasks(Split.HELDOUT, 100)) {
            assertFalse(questions.contains(t.prompt()), "held out, yet in train: " + t.prompt());
            assertEquals("heldout", t.metadata().get(dev.agentswarm.core.protocol.Task.SPLIT));
        }
        var other = MultihopSuite.fromConfig(ConfigFactory.parseString("seed = 12").withFallback(BLOCK));
        assertFalse(other.tasks(Split.TRAIN, 5).equals(suite.tasks(Split.TRAIN, 5)), "another seed, another world");
    }

    @Test
    void aQuestionChainsItsHopsAndEachHopIsStatedOnTheCitedPage() {
        List<Passage> pages = suite.pages();
        for (Task t : suite.tasks(Split.TRAIN, 200)) {
            List<HopTask.Step> steps = HopTask.steps(t);
            assertEquals(Integer.parseInt(t.metadata().get(HopTask.HOPS)), steps.size());
            assertEquals(t.answer(), steps.get(steps.size() - 1).answer());
            assertTrue(t.prompt().contains(steps.get(0).topic()), "the question names only the first entity: " + t.prompt());
            for (int i = 0; i < steps.size(); i++) {
                HopTask.Step s = steps.get(i);
                Passage page = pages.get(Integer.parseInt(s.support().get(0)));
                assertEquals(s.topic(), page.title());
                assertTrue(page.text().contains(s.answer()), page.text() + " states " + s.answer());
                if (i > 0) assertEquals(steps.get(i - 1).answer(), s.topic(), "each hop starts where the last ended");
                if (i < steps.size() - 1) assertFalse(t.prompt().contains(s.answer()), "no later entity is named: " + t.prompt());
            }
        }
    }

    @Test
    void searchingAnEntitysNameRanksItsOwnPageFirst() {
        try (PassageIndex index = new PassageIndex(suite.pages(), false)) {
            int first = 0;
            for (Passage p : index.passages()) if (index.search(p.title(), 1).get(0).key().equals(p.key())) first++;
            assertEquals(index.passages().size(), first, "every page is the top hit for its own title");
        }
    }

    @Test
    void theOracleScoresTheMaximumOnEveryTaskOfBothSplits() {
        double max = BLOCK.getConfig("reward").root().unwrapped().values().stream().mapToDouble(v -> ((Number) v).doubleValue()).sum();
        int searches = 0;
        int hops = 0;
        List<Task> tasks = new java.util.ArrayList<>(suite.tasks(Split.TRAIN, 400));
        tasks.addAll(suite.tasks(Split.HELDOUT, 100));
        for (Task t : tasks) {
            Trajectory done = OracleRun.run(suite, t, DEFAULTS, Noise.NONE);
            Map<String, Double> c = done.reward().components();
            for (String name : List.of("pass", "f1", "em", "verified", "outcome", "support_f1", "efficiency", "format")) {
                assertEquals(1.0, c.get(name), name + " of " + t.id() + ": " + t.prompt() + "\n" + done.transcript());
            }
            assertEquals(max, done.reward().total(), 1e-9, t.id());
            searches += c.get("hops").intValue();
            hops += HopTask.hops(t);
        }
        assertTrue(searches <= hops, "never more searches than hops: " + searches + " for " + hops);
    }

    @Test
    void noisyDemonstrationsStillAnswerRightButSearchMore() {
        Noise noise = new Noise(0.5, 0.5, 0.5);
        double efficiency = 0;
        List<Task> tasks = suite.tasks(Split.TRAIN, 100);
        int padded = 0;
        for (Task t : tasks) {
            Trajectory done = OracleRun.run(suite, t, DEFAULTS, noise);
            assertEquals(1.0, done.reward().components().get("f1"), t.id());
            assertEquals(1.0, done.reward().components().get("support_f1"), t.id());
            efficiency += done.reward().components().get("efficiency");
            if (done.transcript().toString().contains("Alright, let me go step by step")) padded++;
        }
        assertTrue(efficiency / tasks.size() < 0.95, "wasted and wrong calls cost efficiency: " + efficiency / tasks.size());
        assertTrue(padded > 20 && padded < 80, "about half the demonstrations are chatty: " + padded);
    }

    @Test
    void theSearchToolRefusesAnEmptyQueryAndSaysWhenNothingMatches() {
        var search = suite.tools().get(0);
        ObjectNode args = Json.object().put("query", "   ");
        var ctx = new ToolContext("e", 1, 0, "c", 1000);
        var e = assertThrows(java.util.concurrent.CompletionException.class, () -> search.invoke(args, ctx).toCompletableFuture().join());
        assertTrue(e.getCause().getMessage().contains("empty"), e.getCause().getMessage());
        String none = search.invoke(Json.object().put("query", "the of and"), ctx).toCompletableFuture().join();
        assertTrue(none.startsWith("No passage matches"), none);
        String hit = search.invoke(Json.object().put("query", suite.pages().get(0).title()), ctx).toCompletableFuture().join();
        assertTrue(hit.startsWith("[0] " + suite.pages().get(0).title() + "\n"), hit);
        assertEquals(BLOCK.getInt("top-k"), hit.split("\n\n").length, "top-k passages per search");
    }

    @Test
    void badConfigurationIsRefusedByName() {
        var hops = assertThrows(IllegalArgumentException.class,
                () -> MultihopSuite.fromConfig(ConfigFactory.parseString("min-hops = 3, max-hops = 2").withFallback(BLOCK)));
        assertTrue(hops.getMessage().contains("min-hops"), hops.getMessage());
        var turns = assertThrows(IllegalArgumentException.class,
                () -> MultihopSuite.fromConfig(ConfigFactory.parseString("max-turns = 4").withFallback(BLOCK)));
        assertTrue(turns.getMessage().contains("max-turns"), turns.getMessage());
        var weight = assertThrows(IllegalArgumentException.class,
                () -> MultihopSuite.fromConfig(ConfigFactory.parseString("reward { f5 = 1.0 }").withFallback(BLOCK)));
        assertTrue(weight.getMessage().contains("f5"), weight.getMessage());
        var world = assertThrows(IllegalArgumentException.class,
                () -> MultihopSuite.fromConfig(ConfigFactory.parseString("world.cities = 3").withFallback(BLOCK)));
        assertTrue(world.getMessage().contains("cities"), world.getMessage());
    }
}
