package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The trace page: a row per agent in tree order, model output only ever as text, nothing fetched, the data readable back. */
class TraceHtmlTest {

    static final String TITLE = "Run <1> & \"quotes\"";
    static final String ALERT = "<script>alert(1)</script>";
    /** Would change the page's title, or mark the body, if the page ever ran it. */
    static final String PWN_TITLE = "<script>document.title='pwned'</script>";
    static final String PWN_IMG = "</script><img src=x onerror=\"document.body.dataset.pwned='1'\">";
    static final String UNIQUE = "only-once-7f3a";

    /** Every agent of {@link #sample()}, in the order its rows must come. */
    static final List<String> AGENTS = List.of("root", "root/a", "root/c", "root/c/x", "root/r", "root/f", "root/s", "root/b", "root/k");

    /**
     * Root plans (rejected, then accepted); a, then b which depends on a; a nested orchestrator c with c/x; r fails once and
     * is retried; f fails; s never finishes; k is skipped without ever starting; hostile text in messages, goals and answers.
     */
    static List<JsonNode> sample() {
        List<JsonNode> e = new ArrayList<>();
        e.add(ev(0, null, "swarm_started", "task", "Add <b>1</b> & 2 " + ALERT, "budget", Map.of("turns", 40, "tokens", "10k")));
        e.add(started(0, "root", null, "orchestrator", "Answer the task", List.of(), 1));
        e.add(ev(2, "root", "message", "turn", 1, "role", "system", "content", "You plan. " + ALERT));
        e.add(ev(8, "root", "turn", "turn", 1, "action", "spawn_subagents(...)", "tokens", 120));
        e.add(ev(9, "root", "plan", "accepted", false, "round", 1, "subtasks", List.of(subtask("b", List.of("z"))), "stages", List.of(),
                "observation", "b depends on unknown z " + ALERT));
        e.add(ev(12, "root", "plan", "accepted", true, "round", 2,
                "subtasks", List.of(subtask("a", List.of()), subtask("b", List.of("a")), subtask("c", List.of())),
                "stages", List.of(List.of("a", "c"), List.of("b"))));
        e.add(started(13, "root/a", "root", "search", "Find x " + ALERT, List.of(), 1));
        e.add(started(14, "root/c", "root", "orchestrator", "Split again", List.of(), 1));
        e.add(started(15, "root/r", "root", "general", "Flaky", List.of(), 1));
        e.add(started(16, "root/f", "root", "coding", "Doomed", List.of(), 1));
        e.add(started(17, "root/s", "root", "general", "Slow", List.of(), 1));
        e.add(ev(20, "root/a", "message", "turn", 1, "role", "user", "content", PWN_TITLE));
        e.add(ev(24, "root/a", "message", "turn", 1, "role", "assistant", "content", PWN_IMG + " " + UNIQUE,
                "tool_calls", List.of(Map.of("name", "calculator", "arguments", Map.of("expression", "1+2</script>")))));
        e.add(ev(25, "root/a", "turn", "turn", 1, "action", "calculator({\"expression\":\"1+2\"})", "tokens", 50));
        e.add(ev(27, "root/a", "message", "turn", 2, "role", "tool", "content", "3\n".repeat(200)));
        e.add(ev(28, "root/a", "turn", "turn", 2, "action", "answer: 3", "tokens", 80));
        e.add(started(30, "root/c/x", "root/c", "search", "Look up", List.of(), 1));
        e.add(finished(32, "root/r", "failed", null, null, "timeout <after 5 s>", 1, 10, 1));
        e.add(ev(33, "root/r", "retry", "attempt", 2, "reason", "failed: timeout"));
        e.add(started(34, "root/r", "root", "general", "Flaky", List.of(), 2));
        e.add(finished(35, "root/a", "done", "final_answer", PWN_TITLE + "3", null, 2, 80, 1));
        e.add(started(36, "root/b", "root", "search", "Use a's x", List.of("a"), 1));
        e.add(finished(40, "root/f", "failed", null, null, "tool crashed: " + PWN_IMG, 1, 30, 1));
        e.add(finished(44, "root/c/x", "done", "final_answer", "x=1", null, 1, 20, 1));
        e.add(finished(46, "root/c", "done", "final_answer", "c done", null, 2, 60, 1));
        e.add(ev(50, "root/b", "budget_exhausted", "budget", "tokens", "detail", "20000 > 10000"));
        e.add(finished(52, "root/r", "done", "final_answer", "ok", null, 1, 12, 2));
        e.add(finished(55, "root/b", "cancelled", "budget", null, null, 3, 200, 1));
        e.add(finished(56, "root/k", "skipped", null, null, "dependency b cancelled", 0, 0, 1));
        e.add(ev(57, "root", "mystery_kind", "payload", Map.of("x", "<i>raw</i>")));
        e.add(finished(60, "root", "done", "final_answer", "3 & <done>", null, 3, 400, 1));
        e.add(ev(61, null, "swarm_finished", "answer", "3 & <done> " + ALERT, "missing", List.of("root/b", "root/k"),
                "metrics", Map.of("critical_steps", 7, "total_steps", 19, "parallelism", 2.71, "wall_ms", 61, "serial_ms", 140)));
        return e;
    }

    static JsonNode ev(double t, String agent, String kind, Object... fields) {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("t_ms", t);
        m.put("agent", agent);
        m.put("kind", kind);
        for (int i = 0; i < fields.length; i += 2) m.put((String) fields[i], fields[i + 1]);
        return Json.MAPPER.valueToTree(m);
    }

    static JsonNode started(double t, String agent, String parent, String mode, String goal, List<String> deps, int attempt) {
        return ev(t, agent, "agent_started", "parent", parent, "mode", mode, "goal", goal, "depends_on", deps, "attempt", attempt,
                "episode_id", agent + "#" + attempt);
    }

    static JsonNode finished(double t, String agent, String state, String stop, String answer, String error, int turns, int tokens, int attempt) {
        return ev(t, agent, "agent_finished", "state", state, "stop_reason", stop, "answer", answer, "error", error, "turns", turns,
                "tokens", tokens, "attempt", attempt);
    }

    static Map<String, Object> subtask(String id, List<String> deps) {
        return Map.of("id", id, "goal", "goal of " + id + " <u>", "mode", "search", "depends_on", deps);
    }

    static int count(String haystack, String needle) {
        int n = 0;
        for (int i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + 1)) n++;
        return n;
    }

    static String dataJson(String page) {
        String open = "<script type=\"application/json\" id=\"trace-data\">";
        int from = page.indexOf(open) + open.length();
        return page.substring(from, page.indexOf("</script>", from));
    }

    @Test
    void everyAgentHasARowParentsAboveChildrenInOrderOfStart() {
        String page = TraceHtml.render(TITLE, sample());
        int last = -1;
        for (String agent : AGENTS) {
            int at = page.indexOf("data-agent=\"" + agent + "\"");
            assertTrue(at > last, agent + " has a row after the one before it");
            last = at;
        }
        assertEquals(AGENTS.size(), count(page, "<details class=\"agent\""));
        assertEquals(2, count(page, "data-agent=\"root/r\"") + count(page, "title=\"root/r attempt 2"), "r's second attempt has its own bar");
        assertTrue(page.contains("data-agent=\"root/s\" data-state=\"running\""));
        assertTrue(page.contains("data-agent=\"root/k\" data-state=\"skipped\""));
        assertTrue(page.contains("data-agent=\"root/f\" data-state=\"failed\""));
        assertTrue(page.contains("class=\"mark plan rejected\"") && page.contains("class=\"mark plan\""), "both plans are markers on root's row");
        assertTrue(page.contains("<b>mystery_kind</b>"), "an unknown kind is shown as raw JSON");
    }

    @Test
    void traceTextAppearsOnlyEscaped() {
        String page = TraceHtml.render(TITLE, sample());
        assertEquals(2, count(page, "<script"), "the data element and the page's own script, nothing else");
        assertEquals(2, count(page, "</script>"));
        assertFalse(page.contains("<img"));
        assertFalse(page.contains("<b>1</b>") || page.contains("<u>") || page.contains("<i>raw"));
        assertTrue(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assertTrue(page.contains("&lt;/script&gt;&lt;img src=x onerror=\"document.body.dataset.pwned='1'\"&gt;"), "quotes need no escaping in text");
        assertTrue(page.contains("<title>Run &lt;1&gt; &amp; &quot;quotes&quot;</title>"));
    }

    @Test
    void thePageFetchesNothing() {
        String page = TraceHtml.render(TITLE, sample());
        assertFalse(page.contains("http://") || page.contains("https://"), "no external references");
        assertFalse(page.contains("src=\"") || page.contains("href=") || page.contains("url("), "no resources at all");
        assertTrue(page.contains("default-src 'none'"), "and the policy forbids loading any");
    }

    @Test
    void embeddedDataParsesBackWithoutMessageContents() throws Exception {
        String page = TraceHtml.render(TITLE, sample());
        JsonNode data = Json.parse(dataJson(page));
        assertEquals(TITLE, data.get("title").asText());
        assertEquals("Add <b>1</b> & 2 " + ALERT, data.get("task").asText());
        assertEquals(AGENTS.size(), data.get("agents").size());
        for (int i = 0; i < AGENTS.size(); i++) assertEquals(AGENTS.get(i), data.get("agents").get(i).get("path").asText());
        JsonNode r = data.get("agents").get(AGENTS.indexOf("root/r"));
        assertEquals("failed", r.get("attempts").get(0).get("state").asText());
        assertEquals("done", r.get("attempts").get(1).get("state").asText());
        assertEquals(2, data.get("agents").get(AGENTS.indexOf("root/c/x")).get("depth").asInt());
        assertEquals(61.0, data.get("agents").get(AGENTS.indexOf("root/s")).get("attempts").get(0).get("end_ms").asDouble(), "runs to the end");
        assertEquals(1, count(page, UNIQUE), "message contents are in the page once");
    }

    @Test
    void oddEventsDoNotBreakThePage() throws Exception {
        List<JsonNode> odd = List.of(Json.parse("{}"), Json.parse("{\"kind\":\"turn\",\"agent\":\"root/z\"}"),
                Json.parse("{\"kind\":\"agent_started\",\"agent\":\"root\",\"t_ms\":\"soon\"}"),
                Json.parse("{\"kind\":\"message\",\"agent\":\"root/z\",\"tool_calls\":[{}],\"content\":null}"),
                Json.parse("{\"kind\":\"swarm_finished\",\"metrics\":{\"nested\":{\"a\":1}}}"));
        String page = TraceHtml.render(null, odd);
        assertTrue(page.contains("data-agent=\"root\"") && page.contains("data-agent=\"root/z\""));
        assertEquals(0, Json.parse(dataJson(TraceHtml.render("empty", List.of()))).get("agents").size());
    }

    @Test
    void writeReadsTheFileAndNamesTheBadLine(@TempDir Path dir) throws Exception {
        Path trace = dir.resolve("run-7").resolve("trace.jsonl");
        Files.createDirectories(trace.getParent());
        StringBuilder lines = new StringBuilder();
        for (JsonNode e : sample()) lines.append(Json.write(e)).append('\n');
        Files.writeString(trace, lines + "\n");
        Path html = dir.resolve("out").resolve("trace.html");
        TraceHtml.write(trace, html);
        String page = Files.readString(html);
        assertTrue(page.contains("<title>Swarm trace run-7</title>"), "titled after the run folder");
        assertTrue(page.contains("data-agent=\"root/c/x\""));

        Files.writeString(trace, Json.write(sample().get(0)) + "\n\n{\"t_ms\": 3, \"kind\":\n");
        IllegalArgumentException torn = assertThrows(IllegalArgumentException.class, () -> TraceHtml.write(trace, html));
        assertTrue(torn.getMessage().contains(trace + " line 3"), torn.getMessage());
        Files.writeString(trace, Json.write(sample().get(0)) + "\n[1, 2]\n");
        IllegalArgumentException array = assertThrows(IllegalArgumentException.class, () -> TraceHtml.write(trace, html));
        assertTrue(array.getMessage().contains(trace + " line 2: not a JSON object"), array.getMessage());
    }
}
