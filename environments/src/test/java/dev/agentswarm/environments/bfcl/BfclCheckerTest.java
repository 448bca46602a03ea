package dev.agentswarm.environments.bfcl;

import static dev.agentswarm.environments.bfcl.BfclFixtures.array;
import static dev.agentswarm.environments.bfcl.BfclFixtures.calls;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.protocol.Task;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * BFCL's checker on hand-written right and wrong calls for each category: the verdicts and error types
 * BFCL's own ast_checker gives for them (checked against its Python code at the data's commit).
 */
class BfclCheckerTest {

    private static final String VALID = "valid";

    /** The verdict on calls to a question of the test copy, by its id. */
    private static String on(String id, String callsJson) {
        Task t = BfclFixtures.task(id);
        BfclCategory c = BfclSuite.category(t);
        return outcome(BfclChecker.check(BfclSuite.functions(t), calls(callsJson), BfclSuite.groundTruth(t), c.language(), c.label()));
    }

    /** The verdict on calls to hand-written functions and answers. */
    private static String on(String docsJson, String answersJson, String category, String callsJson) {
        List<JsonNode> docs = new ArrayList<>();
        array(docsJson).forEach(docs::add);
        return outcome(BfclChecker.check(docs, calls(callsJson), array(answersJson), BfclChecker.Language.PYTHON, category));
    }

    private static String outcome(BfclChecker.Verdict v) {
        return v.valid() ? VALID : v.errorType();
    }

    private static String call(String name, String args) {
        return "{\"name\": \"" + name + "\", \"arguments\": " + args + "}";
    }

    private static String one(String name, String args) {
        return "[" + call(name, args) + "]";
    }

    @Test
    void simplePythonTypesValuesAndParameters() {
        String f = "calculate_triangle_area";
        assertEquals(VALID, on("simple_python_0", one(f, "{\"base\": 10, \"height\": 5}")));
        assertEquals(VALID, on("simple_python_0", one(f, "{\"base\": 10, \"height\": 5, \"unit\": \"Units.\"}")));
        assertEquals("type_error:simple", on("simple_python_0", one(f, "{\"base\": 10.0, \"height\": 5}")));
        assertEquals("type_error:simple", on("simple_python_0", one(f, "{\"base\": \"10\", \"height\": 5}")));
        assertEquals("type_error:simple", on("simple_python_0", one(f, "{\"base\": true, \"height\": 5}")));
        assertEquals("value_error:string", on("simple_python_0", one(f, "{\"base\": 10, \"height\": 5, \"unit\": \"cm\"}")));
        assertEquals("simple_function_checker:unexpected_param", on("simple_python_0", one(f, "{\"base\": 10, \"height\": 5, \"precision\": 2}")));
        assertEquals("simple_function_checker:missing_required", on("simple_python_0", one(f, "{\"base\": 10}")));
        assertEquals("simple_function_checker:wrong_func_name", on("simple_python_0", one("calc_area", "{\"base\": 10, \"height\": 5}")));
        assertEquals("simple_function_checker:wrong_count",
                on("simple_python_0", "[" + call(f, "{\"base\": 10, \"height\": 5}") + ", " + call(f, "{\"base\": 10, \"height\": 5}") + "]"));
        assertEquals("simple_function_checker:wrong_count", on("simple_python_0", "[]"));
        assertEquals("value_error:others", on("simple_python_0", one(f, "{\"base\": 11, \"height\": 5}")));
    }

    private static final String D1 = "[{\"name\": \"physics.speed\", \"parameters\": {\"type\": \"dict\", \"properties\": {"
            + "\"distance\": {\"type\": \"float\"}, \"time\": {\"type\": \"integer\"}, \"unit\": {\"type\": \"string\"}},"
            + " \"required\": [\"distance\", \"time\"]}}]";
    private static final String A1 = "[{\"physics.speed\": {\"distance\": [100.0], \"time\": [10], \"unit\": [\"\", \"m/s\"]}}]";

    @Test
    void anIntegerWhereAFloatIsDeclaredIsPromotedButNotTheOtherWayRound() {
        assertEquals(VALID, on(D1, A1, "simple_python", one("physics.speed", "{\"distance\": 100, \"time\": 10}")));
        assertEquals("type_error:simple", on(D1, A1, "simple_python", one("physics.speed", "{\"distance\": 100.0, \"time\": 10.0}")));
        assertEquals(VALID, on(D1, A1, "simple_python", one("physics.speed", "{\"distance\": 100, \"time\": 10, \"unit\": \"M/S\"}")));
        // Names are compared as given: agentswarm maps an API's underscored names back before scoring.
        assertEquals("simple_function_checker:wrong_func_name", on(D1, A1, "simple_python", one("physics_speed", "{\"distance\": 100, \"time\": 10}")));
    }

    private static final String D2 = "[{\"name\": \"stats.mean\", \"parameters\": {\"type\": \"dict\", \"properties\": {"
            + "\"values\": {\"type\": \"array\", \"items\": {\"type\": \"float\"}}, \"labels\": {\"type\": \"array\", \"items\": {\"type\": \"string\"}}},"
            + " \"required\": [\"values\"]}}]";
    private static final String A2 = "[{\"stats.mean\": {\"values\": [[1.5, 2.0, 3.0]], \"labels\": [[\"New York\", \"LA\"], \"\"]}}]";

    @Test
    void listsAreTypedElementByElementAndComparedInOrder() {
        String f = "stats.mean";
        assertEquals("type_error:nested", on(D2, A2, "simple_python", one(f, "{\"values\": [1.5, 2, 3]}")));
        assertEquals("value_error:list/tuple", on(D2, A2, "simple_python", one(f, "{\"values\": [3.0, 2.0, 1.5]}")));
        assertEquals(VALID, on(D2, A2, "simple_python", one(f, "{\"values\": [1.5, 2.0, 3.0], \"labels\": [\"new-york\", \"la\"]}")));
        assertEquals(VALID, on(D2, A2, "simple_python", one(f, "{\"values\": [1.5, 2.0, 3.0], \"labels\": []}")));
    }

    private static final String D3 = "[{\"name\": \"db.fetch\", \"parameters\": {\"type\": \"dict\", \"properties\": {"
            + "\"conditions\": {\"type\": \"dict\"}, \"sort\": {\"type\": \"array\", \"items\": {\"type\": \"dict\"}}},"
            + " \"required\": [\"conditions\"]}}]";
    private static final String A3 = "[{\"db.fetch\": {\"conditions\": [{\"department\": [\"Science\"], \"school\": [\"Bluebird High School\", \"Bluebird HS\"],"
            + " \"year\": [\"\", 2024]}], \"sort\": [[{\"field\": [\"age\"], \"asc\": [true]}], \"\"]}}]";

    @Test
    void dictionariesKeyByKeyWithOptionalKeysAndListsOfThem() {
        String f = "db.fetch";
        String good = "{\"department\": \"science\", \"school\": \"Bluebird HS\"}";
        assertEquals(VALID, on(D3, A3, "simple_python", one(f, "{\"conditions\": " + good + "}")));
        assertEquals("value_error:dict_key", on(D3, A3, "simple_python",
                one(f, "{\"conditions\": {\"department\": \"science\", \"school\": \"Bluebird HS\", \"city\": \"X\"}}")));
        assertEquals("value_error:dict_value", on(D3, A3, "simple_python",
                one(f, "{\"conditions\": {\"department\": \"Math\", \"school\": \"Bluebird HS\"}}")));
        assertEquals("value_error:dict_key", on(D3, A3, "simple_python", one(f, "{\"conditions\": {\"department\": \"Science\"}}")));
        // BFCL looks for missing keys even after a wrong value, and reports the missing key.
        assertEquals("value_error:dict_key", on(D3, A3, "simple_python", one(f, "{\"conditions\": {\"department\": \"Math\"}}")));
        assertEquals("value_error:list_dict_count", on(D3, A3, "simple_python", one(f, "{\"conditions\": " + good
                + ", \"sort\": [{\"field\": \"age\", \"asc\": true}, {\"field\": \"name\", \"asc\": true}]}")));
        assertEquals(VALID, on(D3, A3, "simple_python", one(f, "{\"conditions\": {\"department\": \"science\", \"school\": \"Bluebird HS\","
                + " \"year\": 2024.0}, \"sort\": [{\"field\": \"AGE\", \"asc\": true}]}")));
        String d6 = "[{\"name\": \"cfg\", \"parameters\": {\"type\": \"dict\", \"properties\": {\"opts\": {\"type\": \"dict\"}}, \"required\": [\"opts\"]}}]";
        assertEquals("dict_checker:unclear", on(d6, "[{\"cfg\": {\"opts\": [\"\"]}}]", "simple_python", one("cfg", "{\"opts\": {}}")));
    }

    @Test
    void aValueOfTheAnswersOwnTypeIsComparedExactly() {
        String d4 = "[{\"name\": \"get_items\", \"parameters\": {\"type\": \"dict\", \"properties\": {\"filter\": {\"type\": \"string\"},"
                + " \"data\": {\"type\": \"array\", \"items\": {\"type\": \"string\"}}}, \"required\": []}}]";
        String a4 = "[{\"get_items\": {\"filter\": [\"\", null], \"data\": [\"data['sales']\"]}}]";
        assertEquals(VALID, on(d4, a4, "live_simple", one("get_items", "{\"filter\": null, \"data\": \"data['sales']\"}")));
        assertEquals("value_error:others", on(d4, a4, "live_simple", one("get_items", "{\"filter\": \"none\", \"data\": \"data['sales']\"}")));
        assertEquals("value_error:others", on(d4, a4, "live_simple", one("get_items", "{\"data\": [\"sales\"]}")));
    }

    @Test
    void liveSimpleNeedsEveryParameterTheAnswerDoesNotMarkOptional() {
        assertEquals(VALID, on("live_simple_0-0-0", one("get_user_info", "{\"user_id\": 7890, \"special\": \"Black.\"}")));
        assertEquals("simple_function_checker:missing_optional", on("live_simple_0-0-0", one("get_user_info", "{\"user_id\": 7890}")));
        assertEquals("type_error:simple", on("live_simple_0-0-0", one("get_user_info", "{\"user_id\": \"7890\", \"special\": \"black\"}")));
    }

    @Test
    void multipleChecksTheOneCallAgainstTheAnsweredFunction() {
        String t = "triangle_properties.get";
        assertEquals(VALID, on("multiple_0", one(t, "{\"side1\": 5, \"side2\": 4, \"side3\": 3}")));
        assertEquals("simple_function_checker:wrong_func_name", on("multiple_0", one("circle_properties.get", "{\"radius\": 3.0}")));
        assertEquals("multiple_function_checker:wrong_count", on("multiple_0",
                "[" + call(t, "{\"side1\": 5, \"side2\": 4, \"side3\": 3}") + ", " + call(t, "{\"side1\": 5, \"side2\": 4, \"side3\": 3}") + "]"));
        assertEquals("type_error:simple", on("multiple_0", one(t, "{\"side1\": 5, \"side2\": 4, \"side3\": 3, \"get_area\": 1}")));
    }

    @Test
    void parallelCallsMatchInAnyOrderFirstFit() {
        String p = "spotify.play";
        assertEquals(VALID, on("parallel_0", "[" + call(p, "{\"artist\": \"Maroon 5\", \"duration\": 15}") + ", "
                + call(p, "{\"artist\": \"taylor swift\", \"duration\": 20}") + "]"));
        assertEquals("parallel_function_checker_no_order:wrong_count", on("parallel_0", one(p, "{\"artist\": \"Maroon 5\", \"duration\": 15}")));
        assertEquals("parallel_function_checker_no_order:cannot_find_match", on("parallel_0", "[" + call(p, "{\"artist\": \"Taylor Swift\", \"duration\": 20}")
                + ", " + call(p, "{\"artist\": \"Maroon5\", \"duration\": 20}") + "]"));
        // BFCL matches greedily: a loose answer takes the first call that fits, which a stricter one needed.
        String d5 = "[{\"name\": \"set_temp\", \"parameters\": {\"type\": \"dict\", \"properties\": {\"room\": {\"type\": \"string\"},"
                + " \"temp\": {\"type\": \"integer\"}}, \"required\": [\"room\"]}}]";
        String a5 = "[{\"set_temp\": {\"room\": [\"kitchen\"], \"temp\": [\"\", 20]}}, {\"set_temp\": {\"room\": [\"kitchen\"], \"temp\": [20]}}]";
        assertEquals("parallel_function_checker_no_order:cannot_find_match", on(d5, a5, "parallel",
                "[" + call("set_temp", "{\"room\": \"kitchen\", \"temp\": 20}") + ", " + call("set_temp", "{\"room\": \"kitchen\"}") + "]"));
        assertEquals(VALID, on(d5, a5, "parallel",
                "[" + call("set_temp", "{\"room\": \"kitchen\"}") + ", " + call("set_temp", "{\"room\": \"kitchen\", \"temp\": 20}") + "]"));
    }

    @Test
    void parallelMultipleAndLiveCategories() {
        String sum = call("math_toolkit.sum_of_multiples", "{\"lower_limit\": 1, \"upper_limit\": 1000, \"multiples\": [3, 5]}");
        String primes = call("math_toolkit.product_of_primes", "{\"count\": 5}");
        assertEquals(VALID, on("parallel_multiple_0", "[" + primes + ", " + sum + "]"));
        assertEquals("parallel_function_checker_no_order:cannot_find_match", on("parallel_multiple_0", "[" + primes + ", "
                + call("math_toolkit.sum_of_multiples", "{\"lower_limit\": 1, \"upper_limit\": 1000, \"multiples\": [5, 3]}") + "]"));
        String w = "get_current_weather";
        assertEquals(VALID, on("live_parallel_0-0-0", "[" + call(w, "{\"location\": \"Shanghai, China\"}") + ", "
                + call(w, "{\"location\": \"Beijing, China\", \"unit\": \"fahrenheit\"}") + "]"));
        assertEquals("parallel_function_checker_no_order:cannot_find_match", on("live_parallel_0-0-0",
                "[" + call(w, "{\"location\": \"Beijing\"}") + ", " + call(w, "{\"location\": \"Shanghai\"}") + "]"));
        String food = call("ChaFod", "{\"foodItem\": \"Caesar salad\", \"removeIngredients\": \"anchovies\"}");
        String drink = "{\"drink_id\": \"123\", \"new_preferences\": {\"size\": \"large\", \"temperature\": \"hot\", \"sweetness_level\": \"regular\","
                + " \"milk_type\": \"almond\"%s}}";
        assertEquals(VALID, on("live_parallel_multiple_0-0-0", "[" + food + ", " + call("ChaDri.change_drink", drink.formatted("")) + "]"));
        assertEquals("parallel_function_checker_no_order:cannot_find_match", on("live_parallel_multiple_0-0-0",
                "[" + food + ", " + call("ChaDri.change_drink", drink.formatted(", \"extra_shot\": true")) + "]"));
    }

    @Test
    void javaValuesAreSourceStringsWithJavasSuffixes() {
        String u = "SmsHomeRecommendSubjectController.updateSort";
        assertEquals(VALID, on("simple_java_25", one(u, "{\"id\": \"42L\", \"sort\": \"5\"}")));
        assertEquals("type_error:simple", on("simple_java_25", one(u, "{\"id\": \"42\", \"sort\": \"5\"}")));
        assertEquals("type_error:java", on("simple_java_25", one(u, "{\"id\": \"42L\", \"sort\": 5}")));
        String m = "SQLCompletionAnalyzer.makeProposalsFromObject";
        assertEquals(VALID, on("simple_java_1", one(m, "{\"object\": \"Customers\", \"useShortName\": \"true\", \"params\":"
                + " \"new HashMap<String, Object>() {{ put(\\\"limit\\\", 50); put(\\\"schemaFilter\\\", \\\"public\\\"); }}\"}")));
        assertEquals("value_error:dict_key", on("simple_java_1", one(m, "{\"object\": \"Customers\", \"useShortName\": \"true\","
                + " \"params\": \"new HashMap<String,Object>()\"}")));
        assertEquals("type_error:simple", on("simple_java_1", one(m, "{\"object\": \"Customers\", \"useShortName\": \"True\", \"params\":"
                + " \"new HashMap<String, Object>() {{ put(\\\"limit\\\", 50); put(\\\"schemaFilter\\\", \\\"public\\\"); }}\"}")));
        // An array's quoted strings keep their quotes in BFCL's converter, so they never match.
        assertEquals("value_error:list/tuple", on("simple_java_90", one("sourcepaths002.runIt",
                "{\"args\": \"new String[]{\\\"-v\\\", \\\"-p\\\"}\", \"out\": \"System.out\"}")));
        assertEquals(VALID, on("simple_java_90", one("sourcepaths002.runIt", "{\"args\": \"new String[]{-v,-p}\", \"out\": \"System.out\"}")));
    }

    @Test
    void javascriptValuesAreSourceStrings() {
        String e = "extractLastTransactionId";
        String rest = ", \"filepath\": \"/var/log/db.log\", \"processFunction\": \"processFunction\"";
        assertEquals(VALID, on("simple_javascript_2", one(e, "{\"status\": \"['completed', 'failed']\", \"encoding\": \"utf-8\"" + rest + "}")));
        assertEquals("type_error:js", on("simple_javascript_2", one(e, "{\"status\": [\"completed\", \"failed\"], \"encoding\": \"utf-8\"" + rest + "}")));
        assertEquals("value_error:list/tuple", on("simple_javascript_2", one(e, "{\"status\": \"['failed', 'completed']\", \"encoding\": \"UTF8\"" + rest + "}")));
        String s = "submitAtCoordinate";
        assertEquals(VALID, on("simple_javascript_3", one(s, "{\"action\": \"submit\", \"formId\": \"loginForm\", \"coordinates\": \"[60, 30]\"}")));
        assertEquals("value_error:list/tuple", on("simple_javascript_3", one(s, "{\"action\": \"submit\", \"formId\": \"loginForm\", \"coordinates\": \"[0.6, 0.3]\"}")));
        assertEquals("type_error:nested", on("simple_javascript_3", one(s, "{\"action\": \"submit\", \"formId\": \"loginForm\", \"coordinates\": \"[60%, 30%]\"}")));
    }

    @Test
    void standardizingDropsExactlyBfclsPunctuation() {
        assertEquals("newyorkny", BfclChecker.standardize("New York, NY"));
        assertEquals("o\"brien", BfclChecker.standardize("O'Brien"));
        assertEquals("a\tb", BfclChecker.standardize("a\tb"));
        assertEquals("", BfclChecker.standardize(" - "));
        assertEquals("a:b", BfclChecker.standardize("A:B"));
    }
}
