package dev.agentswarm.environments.bfcl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.environment.TaskEnvironment;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.EpisodeStats;
import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.environments.Noise;
import dev.agentswarm.environments.Oracle;
import dev.agentswarm.environments.Split;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class BfclSuiteTest {

    private static final List<BfclCategory> LOCAL = Arrays.stream(BfclCategory.values())
            .filter(c -> !List.of(BfclCategory.LIVE_MULTIPLE, BfclCategory.LIVE_IRRELEVANCE, BfclCategory.LIVE_RELEVANCE).contains(c)).toList();

    private static BfclSuite suite(Path dir) {
        return new BfclSuite(dir, LOCAL);
    }

    @Test
    void tasksInterleaveTheCategoriesSoALimitTakesSomeOfEach() {
        List<Task> ten = suite(BfclFixtures.copy()).tasks(Split.HELDOUT, 10);
        assertEquals(LOCAL.stream().map(BfclCategory::label).toList(), ten.stream().map(t -> t.metadata().get("category")).toList());
        Task first = ten.get(0);
        assertEquals("simple_python_0", first.id());
        assertTrue(first.prompt().contains("triangle"), first.prompt());
        assertEquals("bfcl", first.metadata().get(Task.SUITE));
        assertTrue(suite(BfclFixtures.copy()).tasks(Split.HELDOUT, 1000).size() > 20);
    }

    @Test
    void bfclIsATestSetAndAMissingFileIsNamed() {
        IllegalArgumentException train = assertThrows(IllegalArgumentException.class, () -> suite(BfclFixtures.copy()).tasks(Split.TRAIN, 5));
        assertTrue(train.getMessage().contains("no train split"), train.getMessage());
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
                () -> new BfclSuite(BfclFixtures.copy(), List.of(BfclCategory.LIVE_MULTIPLE)).tasks(Split.HELDOUT, 5));
        assertTrue(missing.getMessage().contains("BFCL_v4_live_multiple.json") && missing.getMessage().contains("data-dir"), missing.getMessage());
        assertThrows(IllegalArgumentException.class, () -> BfclCategory.parse("simple_cobol"));
    }

    @Test
    void functionsAreShownAsBfclShowsThemToFunctionCallingModels() {
        TaskEnvironment java = suite(BfclFixtures.copy()).open(BfclFixtures.task("simple_java_25"), "e1");
        ToolSpec update = java.tools().get(0).spec();
        assertEquals("SmsHomeRecommendSubjectController.updateSort", update.name());
        assertTrue(update.description().endsWith(" Note that the provided function is in Java 8 SDK syntax."), update.description());
        JsonNode id = update.parameters().path("properties").path("id");
        assertEquals("string", id.path("type").asText());
        assertTrue(id.path("description").asText().endsWith(" This is Java long type parameter in string representation."), id.toString());
        assertEquals("object", update.parameters().path("type").asText());

        ToolSpec mean = suite(BfclFixtures.copy()).open(BfclFixtures.task("simple_python_83"), "e2").tools().get(0).spec();
        JsonNode coord = mean.parameters().path("properties").path("coord1");
        assertEquals("array", coord.path("type").asText(), "a tuple is an array");
        assertEquals("number", coord.path("items").path("type").asText(), "its float items are numbers");

        ToolSpec js = suite(BfclFixtures.copy()).open(BfclFixtures.task("simple_javascript_3"), "e3").tools().get(0).spec();
        JsonNode coordinates = js.parameters().path("properties").path("coordinates");
        assertEquals("string", coordinates.path("type").asText());
        assertTrue(coordinates.path("description").asText().endsWith("The list elements are of type float; they are not in string representation."));
        assertTrue(coordinates.path("items").isMissingNode());
        for (Tool t : java.tools()) assertEquals(BfclFunctions.RECORDED, t.invoke(null, null).toCompletableFuture().join());
    }

    @Test
    void aQuestionsSystemMessageComesWithItsEnvironment() {
        Task withSystem = suite(BfclFixtures.copy()).tasks(Split.HELDOUT, 1000).stream()
                .filter(t -> t.metadata().containsKey(BfclTasks.SYSTEM)).findFirst().orElse(null);
        if (withSystem != null) {
            assertEquals(withSystem.metadata().get(BfclTasks.SYSTEM), suite(BfclFixtures.copy()).open(withSystem, "e").systemPrompt());
        }
        assertNull(suite(BfclFixtures.copy()).open(BfclFixtures.task("simple_python_0"), "e").systemPrompt());
    }

    private static Trajectory answered(Task t, String text, List<ToolCall> calls, List<String> formatErrors) {
        Turn turn = Turn.assistant(0, Completion.ofText(text, 10, 10), calls, formatErrors, null, null);
        return new Trajectory(t.id() + "#0", t.id(), t.id(), List.of(), List.of(turn), null, StopReason.MAX_TURNS, null,
                new EpisodeStats(1, calls.size(), calls.size(), formatErrors.size(), 10, 10, 1), null);
    }

    private static RewardBreakdown score(String id, String text, List<ToolCall> calls, List<String> errors) {
        Task t = BfclFixtures.task(id);
        return suite(BfclFixtures.copy()).open(t, "e").score(answered(t, text, calls, errors));
    }

    @Test
    void anAnswerIsReadAsBfclsFunctionCallingHandlerReadsIt() {
        RewardBreakdown text = score("simple_python_0", "The area is 25.", List.of(), List.of());
        assertEquals(Map.of("pass", 0.0, "fail:ast_decoder:decoder_failed", 1.0), text.components());
        RewardBreakdown broken = score("simple_python_0", "<tool_call>{\"name\": </tool_call>", List.of(), List.of("not JSON"));
        assertEquals(1.0, broken.components().get("fail:ast_decoder:decoder_failed"));
        RewardBreakdown notObject = score("simple_python_0", "", List.of(new ToolCall("c", "calculate_triangle_area",
                BfclFixtures.read("[10, 5]"))), List.of());
        assertEquals(1.0, notObject.components().get("fail:ast_decoder:decoder_wrong_output_format"));
        RewardBreakdown right = score("simple_python_0", "", List.of(new ToolCall("c", "calculate_triangle_area",
                BfclFixtures.read("{\"base\": 10, \"height\": 5}"))), List.of());
        assertEquals(Map.of("pass", 1.0), right.components());
        assertEquals(1.0, right.total());

        assertEquals(1.0, score("irrelevance_0", "None of these functions computes a triangle's area.", List.of(), List.of()).total());
        assertEquals(1.0, score("irrelevance_0", "", List.of(), List.of()).total(), "no call at all is right");
        assertEquals(1.0, score("irrelevance_0", "<tool_call>{", List.of(), List.of("cut short")).total(), "a call that does not decode is no call");
        RewardBreakdown called = score("irrelevance_0", "", List.of(new ToolCall("c", "determine_body_mass_index",
                BfclFixtures.read("{\"weight\": 70, \"height\": 1.75}"))), List.of());
        assertEquals(Map.of("pass", 0.0, "fail:irrelevance_error:decoder_success", 1.0), called.components());

        Task t = BfclFixtures.task("simple_python_0");
        Trajectory none = new Trajectory("x", "x", t.id(), List.of(), List.of(), null, StopReason.POLICY_ERROR, "the model is down",
                new EpisodeStats(0, 0, 0, 0, 0, 0, 1), null);
        assertEquals(1.0, suite(BfclFixtures.copy()).open(t, "e").score(none).components().get("fail:ast_decoder:decoder_failed"));
    }

    @Test
    void theLeaderboardsColumnsFromTheCategories() {
        Map<String, Double> pass = new java.util.LinkedHashMap<>(Map.of("simple_python", 0.9, "simple_java", 0.6, "simple_javascript", 0.3,
                "multiple", 0.8, "parallel", 0.7, "parallel_multiple", 0.5, "irrelevance", 0.75,
                "live_simple", 0.5, "live_parallel", 1.0, "live_parallel_multiple", 0.25));
        Map<String, Integer> count = Map.of("live_simple", 258, "live_parallel", 16, "live_parallel_multiple", 24);
        Map<String, Double> s = BfclScores.summary(pass, count);
        assertEquals(0.6, s.get("non_live_simple"), 1e-12);
        assertEquals((0.6 + 0.8 + 0.7 + 0.5) / 4, s.get("non_live_ast"), 1e-12);
        assertEquals(0.75, s.get("non_live_irrelevance"), 1e-12);
        assertEquals((258 * 0.5 + 16 * 1.0 + 24 * 0.25) / 298, s.get("live_ast_partial"), 1e-12, "live_multiple is missing: partial");
        assertNull(s.get("live_ast"));
        assertTrue(BfclScores.summary(Map.of("simple_python", 1.0), Map.of("simple_python", 1)).isEmpty(), "no column without all of its parts");
    }

    /** The oracle's verdict on every question of {@code dir}: the ids it cannot pass, by category counts. */
    private static TreeSet<String> oracleFailures(Path dir, Map<String, int[]> perCategory) {
        BfclSuite suite = suite(dir);
        BfclOracle oracle = new BfclOracle();
        TreeSet<String> failed = new TreeSet<>();
        for (Task t : suite.tasks(Split.HELDOUT, Integer.MAX_VALUE)) {
            Oracle.Step step = oracle.next(t, List.of(), Noise.NONE);
            RewardBreakdown r = suite.open(t, "e").score(answered(t, step.answer() == null ? "" : step.answer(), step.calls(), List.of()));
            int[] n = perCategory.computeIfAbsent(t.metadata().get("category"), k -> new int[2]);
            n[0]++;
            if (r.total() == 1.0) n[1]++;
            else failed.add(t.id());
        }
        return failed;
    }

    @Test
    void theOracleAnswersEveryQuestionBfclCanAcceptOnTheTestCopy() {
        TreeSet<String> failed = oracleFailures(BfclFixtures.copy(), new TreeMap<>());
        // Both are beyond any answer under BFCL's checker: an ArrayList of any keeps its items' quotes;
        // a required array parameter whose only possible answer is [].
        assertEquals(new TreeSet<>(List.of("live_simple_112-68-0", "simple_java_36")), failed);
    }

    @Test
    void theOracleOnAllOfTheLocalData() {
        Path shared = BfclFixtures.shared();
        assumeTrue(shared != null, "../shared/data/bfcl is not beside the repository");
        Map<String, int[]> per = new TreeMap<>();
        TreeSet<String> failed = oracleFailures(shared, per);
        assertEquals(new TreeSet<>(List.of("live_simple_106-63-0", "live_simple_112-68-0", "simple_java_36", "simple_java_65")), failed);
        assertEquals(1688, per.values().stream().mapToInt(n -> n[0]).sum());
        assertEquals(400, per.get("simple_python")[1]);
        assertEquals(240, per.get("irrelevance")[1]);
    }
}
