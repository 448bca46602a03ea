package dev.agentswarm.core.format;

import static dev.agentswarm.core.format.FormatTestSupport.assertMentions;
import static dev.agentswarm.core.format.FormatTestSupport.cutOff;
import static dev.agentswarm.core.format.FormatTestSupport.json;
import static dev.agentswarm.core.format.FormatTestSupport.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Role;
import dev.agentswarm.core.protocol.ToolSpec;
import java.util.List;
import org.junit.jupiter.api.Test;

class JsonPlanFormatTest {

    private final JsonPlanFormat format = new JsonPlanFormat();

    private static final ToolSpec EXERCISE = new ToolSpec("plugin-1768545918",
            "Analyzes workout form using PoseTracker data",
            json("{\"type\":\"object\",\"properties\":{\"video_url\":{\"type\":\"string\"}},\"required\":[\"video_url\"]}"));
    private static final ToolSpec NUTRITION = new ToolSpec("plugin-1714851345", "Nutrition type stuff", null);
    private static final List<ToolSpec> CANDIDATES = List.of(EXERCISE, NUTRITION);

    private static final String PLAN = "{\"plugins\": ["
            + "{\"pluginId\": \"plugin-1768545918\", \"name\": \"kinetiqai-exercise-scoring\", "
            + "\"description\": \"Analyze workout form\", \"identifier\": \"rest_api\", \"method\": \"POST\", "
            + "\"api_request_parameters\": {\"video_url\": \"https://videos.example.org/squat.mp4\"}, "
            + "\"all_parameters_hydrated\": true, \"dependencies\": []}, "
            + "{\"pluginId\": \"plugin-1714851345\", \"name\": \"Nutrition BOT\", \"description\": \"Nutrition guidance\", "
            + "\"identifier\": \"rest_api\", \"method\": \"POST\", \"api_request_parameters\": {\"goal\": \"strength\"}, "
            + "\"all_parameters_hydrated\": true, \"dependencies\": [\"plugin-1768545918\"]}]}";

    private ParsedCompletion parse(String s) {
        return format.parse(text(s), CANDIDATES);
    }

    private static String plan(String steps) {
        return "{\"plugins\": [" + steps + "]}";
    }

    private static String step(String id, String... deps) {
        StringBuilder d = new StringBuilder();
        for (String x : deps) d.append(d.length() == 0 ? "" : ", ").append('"').append(x).append('"');
        return "{\"pluginId\": \"" + id + "\", \"api_request_parameters\": {}, \"dependencies\": [" + d + "]}";
    }

    @Test
    void thinkThenPlan() {
        ParsedCompletion p = parse("<think>\nFirst analyze the form, then nutrition depends on it.\n</think>\n" + PLAN);
        assertEquals(List.of(), p.errors());
        assertEquals(json(PLAN), p.plan());
        assertEquals(Json.write(json(PLAN)), p.finalAnswer());
        assertEquals("First analyze the form, then nutrition depends on it.", p.thought());
        assertTrue(p.toolCalls().isEmpty());
    }

    @Test
    void fencesAndProseAreTolerated() {
        ParsedCompletion p = parse("<think>ok</think>Here is the plan {as asked}:\n```json\n" + PLAN + "\n```\nHope this helps! }");
        assertEquals(List.of(), p.errors());
        assertEquals(json(PLAN), p.plan());
        assertEquals("ok\nHere is the plan {as asked}:\n```json\n```\nHope this helps! }", p.thought());
    }

    @Test
    void bracesInsideStringsDoNotConfuseTheScan() {
        String s = plan("{\"pluginId\": \"a\", \"api_request_parameters\": {\"template\": \"}}{{ not a brace \\\" }\"}, \"dependencies\": []}");
        ParsedCompletion p = parse("Plan: " + s);
        assertEquals(List.of(), p.errors());
        assertEquals("}}{{ not a brace \" }", p.plan().at("/plugins/0/api_request_parameters/template").asText());
    }

    @Test
    void emptyPlanIsValid() {
        ParsedCompletion p = parse("{\"plugins\": []}");
        assertEquals(List.of(), p.errors());
        assertEquals("{\"plugins\":[]}", p.finalAnswer());
    }

    @Test
    void cycleIsAnErrorButThePlanIsKept() {
        ParsedCompletion p = parse(plan(step("a", "c") + ", " + step("b", "a") + ", " + step("c", "b")));
        assertNull(p.finalAnswer());
        assertNotNull(p.plan());
        assertEquals(3, p.plan().get("plugins").size());
        assertEquals(1, p.errors().size());
        assertMentions(p.errors(), "dependency cycle: a -> c -> b -> a");

        assertMentions(parse(plan(step("a", "a"))).errors(), "dependency cycle: a -> a");
    }

    @Test
    void unknownDependency() {
        ParsedCompletion p = parse(plan(step("a") + ", " + step("b", "a", "zzz")));
        assertNull(p.finalAnswer());
        assertNotNull(p.plan());
        assertEquals(List.of("plugins[1] (b) depends on \"zzz\", which is not a pluginId of this plan (it has: a, b); "
                + "add that plugin as a step or remove the dependency"), p.errors());
    }

    @Test
    void duplicateAndMissingIds() {
        ParsedCompletion p = parse(plan(step("a") + ", " + step("a") + ", {\"name\": \"x\"}, {\"pluginId\": \" \"}, 7"));
        assertMentions(p.errors(), "duplicate pluginId \"a\" in plugins[0] and plugins[1]",
                "plugins[2] needs \"pluginId\"", "it is missing", "plugins[3] needs \"pluginId\"",
                "plugins[4] must be an object", "got a number");
        assertEquals(4, p.errors().size());
        assertNotNull(p.plan());
    }

    @Test
    void badDependenciesAndParameters() {
        ParsedCompletion p = parse(plan("{\"pluginId\": \"a\", \"dependencies\": \"b\"}, "
                + "{\"pluginId\": \"b\", \"dependencies\": [1], \"api_request_parameters\": [\"x\"]}"));
        assertMentions(p.errors(), "plugins[0] (a): \"dependencies\" must be an array of pluginId strings, got a string",
                "plugins[1] (b): dependencies[0] must be a pluginId string, got a number",
                "plugins[1] (b): \"api_request_parameters\" must be an object");
        // missing dependencies simply means none
        assertEquals(List.of(), parse(plan("{\"pluginId\": \"a\"}")).errors());
    }

    @Test
    void noPluginsArray() {
        ParsedCompletion p = parse("{\"steps\": []}");
        assertMentions(p.errors(), "no \"plugins\" array", "keys: steps", JsonPlanFormat.PLAN_SHAPE);
        assertEquals(json("{\"steps\": []}"), p.plan());
        assertNull(p.finalAnswer());

        ParsedCompletion q = parse("{\"plugins\": {\"pluginId\": \"a\"}}");
        assertMentions(q.errors(), "\"plugins\" must be an array", "got an object");
        assertNotNull(q.plan());
    }

    @Test
    void noJsonOrInvalidJson() {
        assertMentions(parse("I cannot help with that.").errors(), "no JSON object found");
        assertMentions(parse("").errors(), "empty completion");
        ParsedCompletion p = parse("{\"plugins\": [{\"pluginId\": \"a\",}]}");
        assertNull(p.plan());
        assertMentions(p.errors(), "invalid JSON", "line 1, column");
        ParsedCompletion q = format.parse(cutOff("<think>x</think>{\"plugins\": [{\"pluginId\": \"a\", \"api_request_parameters\": {\"q\": 1}"), CANDIDATES);
        assertNull(q.plan(), "an inner object of a cut-off plan is not the plan");
        assertMentions(q.errors(), "is never closed", "token limit");
    }

    @Test
    void unclosedThinkStillFindsThePlan() {
        ParsedCompletion p = parse("<think>pick the exercise plugin " + PLAN);
        assertEquals(List.of(), p.errors());
        assertEquals(json(PLAN), p.plan());
        assertMentions(parse("<think>still thinking").errors(), "never closed with </think>");
    }

    @Test
    void proseBraceBeforeThePlanIsSkipped() {
        ParsedCompletion p = parse("Use {pluginId} fields. {not json} " + plan(step("a")));
        assertEquals(List.of(), p.errors());
        assertEquals("a", p.plan().at("/plugins/0/pluginId").asText());
    }

    @Test
    void promptListsCandidatesAndTheShape() {
        String prompt = format.toolsPrompt(CANDIDATES);
        assertTrue(prompt.startsWith("Candidate plugins:\n[\n  {\"pluginId\": \"plugin-1768545918\", \"description\": "
                + "\"Analyzes workout form using PoseTracker data\", \"parameters\": {\"type\": \"object\", "
                + "\"properties\": {\"video_url\": {\"type\": \"string\"}}, \"required\": [\"video_url\"]}},\n"
                + "  {\"pluginId\": \"plugin-1714851345\", \"description\": \"Nutrition type stuff\", \"parameters\": "
                + "{\"type\": \"object\", \"properties\": {}}}\n]"), prompt);
        assertTrue(prompt.contains(JsonPlanFormat.PLAN_SHAPE));
        assertEquals("json-plan", format.name());
    }

    @Test
    void messages() {
        Message fb = format.formatFeedback(List.of("dependency cycle: a -> a"));
        assertEquals(Role.USER, fb.role());
        assertTrue(fb.content().contains("- dependency cycle: a -> a"));
        assertTrue(fb.content().contains(JsonPlanFormat.PLAN_SHAPE));
        assertEquals(Message.assistant(PLAN), format.assistantMessage(text(PLAN), parse(PLAN)));
    }
}
