package dev.agentswarm.environments.multihop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.EpisodeStats;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.tool.ToolContext;
import dev.agentswarm.environments.Noise;
import dev.agentswarm.environments.OracleRun;
import dev.agentswarm.environments.Split;
import dev.agentswarm.environments.SuiteCatalog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QaDatasetSuiteTest {

    private static final Config ROOT = ConfigFactory.load();
    private static final EpisodeSpec DEFAULTS = EpisodeSpec.fromConfig(ROOT.getConfig("agentswarm.episode"));
    private static final Path MUSIQUE_DEV = Path.of("src/test/resources/musique/dev-sample.jsonl");
    private static final Path MUSIQUE_TRAIN = Path.of("src/test/resources/musique/train-sample.json");
    private static final Path HOTPOT_DEV = Path.of("src/test/resources/hotpotqa/dev-sample.json");
    private static final Path SHARED = Path.of("../../shared/data");

    private static QaDatasetSuite suite(String name, Path train, Path heldout) {
        Config block = ROOT.getConfig("agentswarm.environments." + name)
                .withValue("train-path", ConfigValueFactory.fromAnyRef(train.toString()))
                .withValue("heldout-path", ConfigValueFactory.fromAnyRef(heldout.toString()));
        return name.equals(QaDatasetSuite.MUSIQUE) ? QaDatasetSuite.musique(block) : QaDatasetSuite.hotpotqa(block);
    }

    private static QaDatasetSuite musique() {
        return suite(QaDatasetSuite.MUSIQUE, MUSIQUE_TRAIN, MUSIQUE_DEV);
    }

    private static QaDatasetSuite hotpot() {
        return suite(QaDatasetSuite.HOTPOTQA, HOTPOT_DEV, HOTPOT_DEV);
    }

    /** Official metrics of the oracle on every task: the gold-as-prediction check of each scorer. */
    private static void oracleScoresOne(QaDatasetSuite s, List<Task> tasks, List<String> metrics) {
        for (Task t : tasks) {
            Trajectory done = OracleRun.run(s, t, DEFAULTS, Noise.NONE);
            for (String m : metrics) {
                assertEquals(1.0, done.reward().components().get(m), m + " of " + t.id() + "\n" + done.transcript());
            }
        }
        assertEquals(0, s.openEpisodes(), "every episode's index was closed");
    }

    @Test
    void bothMusiqueShapesLoadWithTheirOwnIdsHopTypesAndSupport() {
        QaDatasetSuite s = musique();
        List<Task> dev = s.tasks(Split.HELDOUT, 100);
        assertEquals(List.of("2hop__335418_279684", "3hop1__222497_309482_27537", "4hop1__56226_32392_823060_610794"),
                dev.stream().map(Task::id).toList());
        assertEquals(List.of("2hop", "3hop1", "4hop1"), dev.stream().map(t -> t.metadata().get(HopTask.TYPE)).toList());
        assertEquals(List.of("2", "3", "4"), dev.stream().map(t -> t.metadata().get(HopTask.HOPS)).toList());
        assertEquals(List.of("Orioles", "Pirates", "Baltimore Orioles", "New York Mets", "Mets"), HopTask.strings(dev.get(0), HopTask.ALIASES));
        for (Task t : dev) {
            assertEquals(20, HopTask.passages(t).size());
            assertEquals(HopTask.hops(t), HopTask.strings(t, HopTask.SUPPORT).size(), "one supporting paragraph per hop");
            for (HopTask.Step step : HopTask.steps(t)) assertTrue(!step.query().contains("#"), "references resolved: " + step.query());
        }
        assertEquals(2, s.tasks(Split.TRAIN, 100).size(), "the JSON-array sample");
        assertEquals(1, s.tasks(Split.HELDOUT, 1).size(), "the limit");
    }

    @Test
    void theOracleScoresOneOnTheCommittedSamples() {
        List<String> official = List.of("pass", "f1", "em", "support_f1", "support_em", "verified");
        QaDatasetSuite m = musique();
        oracleScoresOne(m, m.tasks(Split.HELDOUT, 100), official);
        oracleScoresOne(m, m.tasks(Split.TRAIN, 100), official);
        QaDatasetSuite h = hotpot();
        oracleScoresOne(h, h.tasks(Split.HELDOUT, 100), List.of("pass", "f1", "em", "support_f1", "support_em", "joint_f1", "joint_em"));
    }

    @Test
    void theRealSampleFilesLoadAndTheOracleScoresOneOnEachRecord() {
        assumeTrue(Files.isDirectory(SHARED), "../shared/data is not beside the repository");
        QaDatasetSuite m = suite(QaDatasetSuite.MUSIQUE, SHARED.resolve("musique/musique_ans_v1.0_train.sample100.hipporag.json"),
                SHARED.resolve("musique/musique_ans_v1.0_dev.sample200.migres.jsonl"));
        QaDatasetSuite h = suite(QaDatasetSuite.HOTPOTQA, SHARED.resolve("hotpotqa/hotpot_train_v1.1.sample100.hipporag.json"),
                SHARED.resolve("hotpotqa/hotpot_dev_distractor_v1.first53.json"));
        List<Task> musiqueDev = m.tasks(Split.HELDOUT, 1000);
        List<Task> hotpotDev = h.tasks(Split.HELDOUT, 1000);
        assertEquals(100, m.tasks(Split.TRAIN, 1000).size());
        assertEquals(200, musiqueDev.size());
        assertEquals(100, h.tasks(Split.TRAIN, 1000).size());
        assertEquals(53, hotpotDev.size());
        oracleScoresOne(m, musiqueDev, List.of("f1", "em", "support_f1", "verified"));
        oracleScoresOne(h, hotpotDev, List.of("f1", "em", "support_f1", "joint_f1", "verified"));
    }

    @Test
    void hotpotScoresSentenceFactsWithItsYesNoRuleAndCitedPagesStandForAllTheirSentences() {
        QaDatasetSuite h = hotpot();
        Task comparison = h.tasks(Split.HELDOUT, 3).get(2);
        assertEquals("yes", comparison.answer());
        List<String> cite = HopTask.strings(comparison, HopTask.CITE);
        Map<String, Double> right = score(h, comparison, CitedAnswer.write("yes", cite));
        assertEquals(1.0, right.get("joint_em"));
        Map<String, Double> no = score(h, comparison, CitedAnswer.write("no", cite));
        assertEquals(0.0, no.get("f1"), "yes against no scores 0, whatever the overlap");
        assertEquals(1.0, no.get("support_f1"));
        assertEquals(0.0, no.get("joint_f1"));
        // Citing both whole pages: every gold fact is among their sentences, so recall 1 and precision below 1.
        List<String> pages = cite.stream().map(k -> k.substring(0, k.indexOf('.'))).distinct().toList();
        Map<String, Double> whole = score(h, comparison, CitedAnswer.write("yes", pages));
        assertTrue(whole.get("support_f1") < 1.0 && whole.get("support_f1") > 0.3, "pages cost precision: " + whole);
        assertEquals(0.0, score(h, comparison, "yes").get("support_f1"), "no citation: HotpotQA's empty rule gives 0");
        assertEquals(0.0, score(h, comparison, "yes [99999999999.3]").get("support_f1"), "a key no page has supports nothing");
    }

    private static Map<String, Double> score(QaDatasetSuite s, Task t, String answer) {
        Trajectory done = new Trajectory("e", t.id(), t.id(), List.of(), List.of(), answer, StopReason.FINAL_ANSWER, null,
                new EpisodeStats(3, 2, 2, 0, 0, 0, 0), null);
        try (var env = s.open(t, "score-" + t.id() + answer.hashCode())) {
            return env.score(done).components();
        }
    }

    @Test
    void eachEpisodeSearchesOnlyItsOwnQuestionsParagraphs() {
        QaDatasetSuite s = musique();
        List<Task> dev = s.tasks(Split.HELDOUT, 3);
        var search = s.tools().get(0);
        String title = HopTask.passages(dev.get(1)).get(0).title();
        try (var a = s.open(dev.get(0), "a"); var b = s.open(dev.get(1), "b")) {
            String fromB = search.invoke(Json.object().put("query", title), new ToolContext("b", 1, 0, "c", 1000)).toCompletableFuture().join();
            assertTrue(fromB.contains("] " + title + "\n"), fromB);
            String fromA = search.invoke(Json.object().put("query", title), new ToolContext("a", 1, 0, "c", 1000)).toCompletableFuture().join();
            assertTrue(!fromA.contains("] " + title + "\n") || HopTask.passages(dev.get(0)).stream().anyMatch(p -> p.title().equals(title)));
            assertEquals(2, s.openEpisodes());
        }
        assertEquals(0, s.openEpisodes(), "closing an episode drops its index");
        var e = assertThrows(java.util.concurrent.CompletionException.class, () -> search.invoke(Json.object().put("query", title),
                new ToolContext("gone", 1, 0, "c", 1000)).toCompletableFuture().join());
        assertTrue(e.getCause().getMessage().contains("no musique environment is open"), e.getCause().getMessage());
    }

    @Test
    void episodesOfOneQuestionShareItsIndexUntilTheLastCloses() {
        QaDatasetSuite s = musique();
        List<Task> dev = s.tasks(Split.HELDOUT, 2);
        var a = s.open(dev.get(0), "g0");
        var b = s.open(dev.get(0), "g1");
        var other = s.open(dev.get(1), "x");
        assertEquals(3, s.openEpisodes());
        assertEquals(2, s.openIndexes(), "a group of two shares one index");
        assertThrows(IllegalStateException.class, () -> s.open(dev.get(0), "g0"), "an episode id opens once");
        a.close();
        String found = s.tools().get(0).invoke(Json.object().put("query", dev.get(0).prompt()), new ToolContext("g1", 1, 0, "c", 1000))
                .toCompletableFuture().join();
        assertTrue(found.startsWith("["), "the group's other episode still searches: " + found);
        b.close();
        other.close();
        assertEquals(0, s.openIndexes());
    }

    @Test
    void malformedFilesNameTheLineAndTheField(@TempDir Path dir) throws IOException {
        List<String> lines = Files.readAllLines(MUSIQUE_DEV);
        Path missing = dir.resolve("missing-field.jsonl");
        Files.writeString(missing, lines.get(0) + "\n" + lines.get(1).replace("\"paragraph_support_idx\"", "\"support\"") + "\n");
        var e = assertThrows(IllegalArgumentException.class, () -> suite(QaDatasetSuite.MUSIQUE, missing, missing).tasks(Split.TRAIN, 10));
        assertTrue(e.getMessage().contains("missing-field.jsonl:2") && e.getMessage().contains("\"paragraph_support_idx\" is missing"),
                e.getMessage());

        Path broken = dir.resolve("broken.jsonl");
        Files.writeString(broken, lines.get(0) + "\n{\"id\": \n");
        e = assertThrows(IllegalArgumentException.class, () -> suite(QaDatasetSuite.MUSIQUE, broken, broken).tasks(Split.TRAIN, 10));
        assertTrue(e.getMessage().contains("broken.jsonl:2") && e.getMessage().contains("not a JSON object"), e.getMessage());

        Path unanswerable = dir.resolve("full.jsonl");
        Files.writeString(unanswerable, lines.get(0).replace("\"answerable\": true", "\"answerable\": false") + "\n");
        e = assertThrows(IllegalArgumentException.class, () -> suite(QaDatasetSuite.MUSIQUE, unanswerable, unanswerable).tasks(Split.TRAIN, 10));
        assertTrue(e.getMessage().contains("MuSiQue-Full"), e.getMessage());

        String hotpot = Files.readString(HOTPOT_DEV);
        var records = (com.fasterxml.jackson.databind.node.ArrayNode) Json.parse(hotpot);
        ((com.fasterxml.jackson.databind.node.ArrayNode) records.get(1).get("supporting_facts").get(0)).set(0, "Nowhere");
        Path noTitle = dir.resolve("hotpot.json");
        // Two blank lines, "[", the first record on line 4, the broken second on line 5.
        Files.writeString(noTitle, "\n\n[\n" + Json.write(records.get(0)) + ",\n" + Json.write(records.get(1)) + "\n]\n");
        e = assertThrows(IllegalArgumentException.class, () -> suite(QaDatasetSuite.HOTPOTQA, noTitle, noTitle).tasks(Split.TRAIN, 10));
        assertTrue(e.getMessage().contains("hotpot.json:5 ") && e.getMessage().contains("supporting_facts[0]: title \"Nowhere\" is not in the context"),
                e.getMessage());

        Path truncated = dir.resolve("truncated.json");
        Files.writeString(truncated, hotpot.substring(0, hotpot.length() / 2));
        e = assertThrows(IllegalArgumentException.class, () -> suite(QaDatasetSuite.HOTPOTQA, truncated, truncated).tasks(Split.TRAIN, 10));
        assertTrue(e.getMessage().contains("truncated.json:") && e.getMessage().contains("malformed JSON"), e.getMessage());

        e = assertThrows(IllegalArgumentException.class,
                () -> suite(QaDatasetSuite.HOTPOTQA, dir.resolve("none.json"), dir.resolve("none.json")).tasks(Split.TRAIN, 10));
        assertTrue(e.getMessage().contains("not found") && e.getMessage().contains("hotpotqa.train-path"), e.getMessage());
    }

    @Test
    void aNodeOffersOneSearchToolThatReachesEachEpisodesOwnCorpus() {
        MultihopSuite world = MultihopSuite.fromConfig(ROOT.getConfig("agentswarm.environments.multihop"));
        QaDatasetSuite m = musique();
        var suites = new dev.agentswarm.environments.Suites(List.of(world, m));
        assertEquals(List.of("search"), suites.tools().stream().map(t -> t.name()).toList(), "one schema, one tool");
        var search = suites.tools().get(0);
        Task question = m.tasks(Split.HELDOUT, 1).get(0);
        Task generated = world.tasks(Split.TRAIN, 1).get(0);
        var musiqueEnv = suites.open(question, "m").orElseThrow();
        var worldEnv = suites.open(generated, "w").orElseThrow();
        String query = HopTask.steps(question).get(0).query();
        String fromMusique = search.invoke(Json.object().put("query", query), new ToolContext("m", 1, 0, "c", 1000)).toCompletableFuture().join();
        String fromWorld = search.invoke(Json.object().put("query", query), new ToolContext("w", 1, 0, "c", 1000)).toCompletableFuture().join();
        String gold = HopTask.steps(question).get(0).support().get(0);
        String goldTitle = HopTask.passages(question).stream().filter(p -> p.key().equals(gold)).findFirst().orElseThrow().title();
        assertTrue(fromMusique.contains("] " + goldTitle + "\n"), fromMusique);
        assertTrue(!fromWorld.contains("] " + goldTitle + "\n"), "the generated world has no such page: " + fromWorld);
        musiqueEnv.close();
        worldEnv.close();
        assertEquals(0, m.openEpisodes());
    }

    @Test
    void theCatalogueBuildsBothFromTheirBlocks() {
        assertTrue(SuiteCatalog.known().containsAll(List.of("multihop", "musique", "hotpotqa")));
        assertEquals("musique", SuiteCatalog.one(ROOT, "musique").name());
        assertEquals("hotpotqa", SuiteCatalog.one(ROOT, "hotpotqa").name());
    }
}
