package dev.agentswarm.core.reward;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PluginPlanRewardTest {

    private static final List<String> CANDIDATES = List.of("p1", "p2", "p3", "p4", "p5", "p6");
    private static final Map<String, List<String>> GOLD = new LinkedHashMap<>();

    static {
        GOLD.put("p1", List.of());
        GOLD.put("p2", List.of("p1"));
    }

    private static String step(String id, String deps, String value) {
        return "{\"pluginId\": \"" + id + "\", \"api_request_parameters\": {\"city\": " + value + "},"
                + " \"all_parameters_hydrated\": true, \"dependencies\": [" + deps + "]}";
    }

    private static String plan(String... steps) {
        return "<think>plan it</think>\n{\"plugins\": [" + String.join(", ", steps) + "]}";
    }

    @Test
    void aPerfectPlanEarnsTheSeedsMaximum() {
        var s = PluginPlanReward.score(plan(step("p1", "", "\"Oslo\""), step("p2", "\"p1\"", "\"Lima\"")), CANDIDATES, GOLD);
        assertEquals(0.95, s.total(), 1e-12);
        assertEquals(PluginPlanReward.MAX, s.total(), 1e-12);
        s.facts().forEach((k, v) -> assertEquals(1.0, v, k));
    }

    @Test
    void oneWrongPickAmongTheRightOnes() {
        // 0.10 json + 0.15 candidates + 0.25 recall + 0 bonus − 0.10 wrong + 0 count + 0.15 hydration = 0.55
        var s = PluginPlanReward.score(plan(step("p1", "", "\"Oslo\""), step("p2", "\"p1\"", "\"Lima\""),
                step("p3", "", "\"Rome\"")), CANDIDATES, GOLD);
        assertEquals(0.55, s.total(), 1e-12);
        assertEquals(0.0, s.facts().get("id_match"));
        assertEquals(1.0, s.facts().get("no_hallucination"));
    }

    @Test
    void hallucinatedAndWrongPicksAreCappedAtThree() {
        // one correct of two, four wrong (one outside the candidates), placeholders in half the picks:
        // 0.10 + 0 + 0.125 + 0 − 0.30 + 0 + 0.15 × 3/5 = 0.015
        var s = PluginPlanReward.score(plan(step("p1", "", "\"Oslo\""), step("p3", "", "\"<city>\""), step("p4", "", "\"Rome\""),
                step("p5", "", "null"), step("zz", "", "\"TODO\"")), CANDIDATES, GOLD);
        assertEquals(0.10 + 0.125 - 0.30 + 0.15 * 2 / 5, s.total(), 1e-12);
        assertEquals(0.0, s.facts().get("no_hallucination"));
        assertEquals(0.0, s.facts().get("hydrated"));
        assertEquals(-0.30, s.terms().get("wrong_penalty"), 1e-12);
    }

    @Test
    void malformedJsonEarnsNothingAndNeverThrows() {
        for (String text : new String[] {"", "no json at all", "{\"plugins\": [", "{\"steps\": 3}", null}) {
            var s = PluginPlanReward.score(text, CANDIDATES, GOLD);
            assertEquals(0.0, s.total(), 1e-12, String.valueOf(text));
            assertEquals(0.0, s.facts().get("json_valid"), String.valueOf(text));
        }
    }

    @Test
    void anEmptyPlanEarnsOnlyTheValidJsonTerm() {
        var s = PluginPlanReward.score("{\"plugins\": []}", CANDIDATES, GOLD);
        assertEquals(0.10, s.total(), 1e-12);
    }

    @Test
    void theDependencyChainMustMatchTheGoldAndBeAcyclic() {
        var missing = PluginPlanReward.score(plan(step("p1", "", "\"Oslo\""), step("p2", "", "\"Lima\"")), CANDIDATES, GOLD);
        assertEquals(0.0, missing.facts().get("deps_chain"), "p2 must run after p1");
        assertEquals(0.95, missing.total(), 1e-12, "the seed's score does not look at dependencies");
        Map<String, List<String>> free = Map.of("p1", List.of(), "p2", List.of());
        var cycle = PluginPlanReward.score(plan(step("p1", "\"p2\"", "\"Oslo\""), step("p2", "\"p1\"", "\"Lima\"")), CANDIDATES,
                Map.of());
        assertEquals(0.0, cycle.facts().get("deps_chain"));
        var outside = PluginPlanReward.score(plan(step("p1", "\"p9\"", "\"Oslo\"")), CANDIDATES, free);
        assertEquals(0.0, outside.facts().get("deps_chain"), "a dependency on a plugin not in the plan");
    }

    @Test
    void hydrationRefusesPlaceholders() {
        ObjectNode ok = Json.object();
        ok.put("city", "Oslo");
        ok.put("nights", 3);
        assertTrue(PluginPlanReward.hydrated(ok));
        for (String bad : new String[] {"", "  ", "<city>", "{city}", "TODO", "placeholder", "https://example.com/x", "string"}) {
            ObjectNode p = Json.object();
            p.put("city", bad);
            assertFalse(PluginPlanReward.hydrated(p), bad);
        }
        assertFalse(PluginPlanReward.hydrated(Json.object()), "no parameters at all");
    }

    @Test
    void theLowestScoreIsAValidPlanOfOnlyHallucinatedPicks() {
        // 0.10 json − 0.30 (three wrong counted of four) and nothing else: −0.20
        var s = PluginPlanReward.score(plan(step("zz1", "", "\"TODO\""), step("zz2", "", "\"TODO\""), step("zz3", "", "\"TODO\""),
                step("zz4", "", "\"TODO\"")), CANDIDATES, GOLD);
        assertEquals(-0.20, s.total(), 1e-12);
        assertEquals(0.0, s.terms().get("hydration"));
    }

    @Test
    void aDuplicatePickIsNotWrongButBreaksTheCount() {
        // 0.10 + 0.15 + 0.25 recall + 0.20 no wrong + 0 count (3 ≠ 2) + 0.15 hydration = 0.85
        var s = PluginPlanReward.score(plan(step("p1", "", "\"Oslo\""), step("p1", "", "\"Oslo\""), step("p2", "\"p1\"", "\"Lima\"")),
                CANDIDATES, GOLD);
        assertEquals(0.85, s.total(), 1e-12);
        assertEquals(0.0, s.facts().get("id_match"), "the same set, but not the same plan");
        assertEquals(0.0, s.facts().get("count_match"));
    }

    @Test
    void stepsThatAreNotObjectsAreWrongPicksNotErrors() {
        // two picks without an id: 0.10 json − 0.20 wrong + 0.10 count (2 = 2) = 0.0
        var s = PluginPlanReward.score("{\"plugins\": [\"p1\", 3]}", CANDIDATES, GOLD);
        assertEquals(0.0, s.total(), 1e-12);
        assertEquals(1.0, s.facts().get("json_valid"));
        assertEquals(-0.20, s.terms().get("wrong_penalty"), 1e-12);
    }

    @Test
    void theTermsSumToTheTotalAndNameEveryComponent() {
        var s = PluginPlanReward.score(plan(step("p1", "", "\"Oslo\""), step("p4", "", "\"\"")), CANDIDATES, GOLD);
        assertEquals(PluginPlanReward.TERMS, List.copyOf(s.terms().keySet()));
        assertEquals(PluginPlanReward.FACTS, List.copyOf(s.facts().keySet()));
        assertEquals(s.terms().values().stream().mapToDouble(Double::doubleValue).sum(), s.total(), 1e-12);
        // 0.10 + 0.15 + 0.125 + 0 − 0.10 + 0.10 (2 = 2) + 0.15 × 1/2
        assertEquals(0.10 + 0.15 + 0.125 - 0.10 + 0.10 + 0.075, s.total(), 1e-12);
    }

    @Test
    void nestedParametersMustBeConcreteToo() {
        assertTrue(PluginPlanReward.hydrated(parse("{\"filters\": {\"city\": \"Oslo\"}, \"tags\": [\"a\"], \"n\": 0, \"b\": false}")));
        assertTrue(PluginPlanReward.hydrated(parse("{\"message\": \"Your order has shipped\"}")), "prose is a value");
        for (String bad : new String[] {"{\"filters\": {\"city\": \"<city>\"}}", "{\"tags\": []}", "{\"f\": {}}",
                "{\"key\": \"YOUR_API_KEY\"}", "{\"city\": \"${CITY}\"}", "{\"city\": \"...\"}", "{\"c\": null}",
                "{\"list\": [\"a\", null]}"}) {
            assertFalse(PluginPlanReward.hydrated(parse(bad)), bad);
        }
        assertFalse(PluginPlanReward.hydrated(null));
        assertFalse(PluginPlanReward.hydrated(parse("[\"Oslo\"]")), "parameters are an object");
    }

    private static com.fasterxml.jackson.databind.JsonNode parse(String json) {
        try {
            return Json.parse(json);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
