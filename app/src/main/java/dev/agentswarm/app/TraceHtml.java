package dev.agentswarm.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.orchestrator.swarm.SwarmTrace;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A swarm run's trace ({@code trace.jsonl}) as one self-contained HTML page. The header shows the task, the final answer,
 * the missing sub-agents, the budgets hit and the metrics; below it a timeline has one row per agent, indented under its
 * parent, with one bar per attempt from its start to its finish (to the end of the trace while running) coloured by the
 * attempt's state, and the orchestrators' plans as markers. A row opens to the agent's goal, dependencies, and per
 * attempt its plans, retries, error, answer and turns, each turn opening to its messages.
 *
 * <p>The page is rendered here in Java; every trace string is HTML-escaped, and a Content-Security-Policy lets only the
 * page's own script run (by hash), so model output cannot script the page even if some escaping were missed. The script
 * only expands, collapses and filters rows; it reports any error into {@code #errors} and, when all went well, sets
 * {@code body[data-rendered]} to the number of agents. A summary of the tree (no message contents) is embedded as JSON in
 * {@code #trace-data} for tools.
 */
public final class TraceHtml {

    /** Contents longer than this many characters or lines start clipped, with a button to show them whole. */
    private static final int LONG_CHARS = 800;
    private static final int LONG_LINES = 12;

    private TraceHtml() {}

    /** Reads {@code traceJsonl} (one JSON object per line, blank lines skipped) and writes the page to {@code html}. */
    public static void write(Path traceJsonl, Path html) {
        List<JsonNode> events = SwarmTrace.read(traceJsonl);
        Path dir = traceJsonl.toAbsolutePath().getParent();
        String title = "Swarm trace " + (dir != null && dir.getFileName() != null ? dir.getFileName() : traceJsonl.getFileName());
        try {
            if (html.toAbsolutePath().getParent() != null) Files.createDirectories(html.toAbsolutePath().getParent());
            Files.writeString(html, render(title, events), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The page for {@code events}, the trace's lines in file order. */
    public static String render(String title, List<JsonNode> events) {
        return new Trace(events).page(title == null ? "Swarm trace" : title);
    }

    // ---- the trace read into agents and attempts ----

    private static final class TurnGroup {
        JsonNode turn;
        final List<JsonNode> messages = new ArrayList<>();
    }

    private static final class Attempt {
        final int number;
        final double start;
        double end = Double.NaN;
        JsonNode started;
        JsonNode finished;
        String state;
        /** Plans, retries, budgets hit and unknown kinds, in trace order. */
        final List<JsonNode> notes = new ArrayList<>();
        final Map<Integer, TurnGroup> turns = new LinkedHashMap<>();

        Attempt(int number, double start) {
            this.number = number;
            this.start = start;
        }

        TurnGroup turn(JsonNode event) {
            return turns.computeIfAbsent(event.path("turn").asInt(-1), k -> new TurnGroup());
        }

        int turnCount() {
            if (finished != null && finished.path("turns").isNumber()) return finished.path("turns").asInt();
            int n = 0;
            for (TurnGroup g : turns.values()) if (g.turn != null) n++;
            return n;
        }

        long tokens() {
            if (finished != null && finished.path("tokens").isNumber()) return finished.path("tokens").asLong();
            long last = 0;
            for (TurnGroup g : turns.values()) if (g.turn != null) last = Math.max(last, g.turn.path("tokens").asLong());
            return last;
        }
    }

    private static final class Agent {
        final String path;
        final double first;
        final List<Attempt> attempts = new ArrayList<>();
        final List<Agent> children = new ArrayList<>();
        JsonNode started; // the latest agent_started: mode, goal, dependencies, parent
        int depth;

        Agent(String path, double first) {
            this.path = path;
            this.first = first;
        }

        Attempt current(JsonNode event, double t) {
            if (attempts.isEmpty()) attempts.add(new Attempt(event.path("attempt").asInt(1), t));
            return attempts.get(attempts.size() - 1);
        }

        String parent() {
            if (started != null && started.path("parent").isTextual() && !started.path("parent").asText().isEmpty()) return started.path("parent").asText();
            int slash = path.lastIndexOf('/');
            return slash > 0 ? path.substring(0, slash) : null;
        }

        String state() {
            return attempts.isEmpty() ? "running" : attempts.get(attempts.size() - 1).state;
        }

        String mode() {
            return started == null ? "" : text(started.path("mode"));
        }

        String name() {
            return path.substring(path.lastIndexOf('/') + 1);
        }
    }

    private static final class Trace {
        final Map<String, Agent> agents = new LinkedHashMap<>();
        final List<Agent> rows = new ArrayList<>();
        JsonNode swarmStarted;
        JsonNode swarmFinished;
        final List<JsonNode> budgets = new ArrayList<>();
        final List<JsonNode> loose = new ArrayList<>(); // events that name no agent
        double end = 0;

        Trace(List<JsonNode> events) {
            double t = 0;
            for (JsonNode e : events) {
                // A line without a time happened no earlier than the one before it.
                if (e.path("t_ms").isNumber()) t = e.path("t_ms").asDouble();
                end = Math.max(end, t);
                String kind = text(e.path("kind"));
                if (kind.equals("swarm_started")) swarmStarted = e;
                else if (kind.equals("swarm_finished")) swarmFinished = e;
                if (kind.equals("budget_exhausted")) budgets.add(e);
                if (kind.equals("swarm_started") || kind.equals("swarm_finished")) continue;
                if (!e.path("agent").isTextual() || e.path("agent").asText().isEmpty()) {
                    if (!kind.equals("budget_exhausted")) loose.add(e);
                    continue;
                }
                final double at = t;
                Agent agent = agents.computeIfAbsent(e.path("agent").asText(), p -> new Agent(p, at));
                add(agent, kind, e, t);
            }
            close();
            tree();
        }

        private static void add(Agent agent, String kind, JsonNode e, double t) {
            switch (kind) {
                case "agent_started" -> {
                    Attempt a = new Attempt(e.path("attempt").asInt(agent.attempts.size() + 1), t);
                    a.started = e;
                    agent.started = e;
                    agent.attempts.add(a);
                }
                case "agent_finished" -> {
                    Attempt a = null;
                    int number = e.path("attempt").asInt(-1);
                    for (Attempt x : agent.attempts) if (x.number == number && x.finished == null) a = x;
                    if (a == null && !agent.attempts.isEmpty() && agent.current(e, t).finished == null) a = agent.current(e, t);
                    // A finish with no start (a skipped sub-agent, a lost line) is an attempt of its own.
                    if (a == null) agent.attempts.add(a = new Attempt(number < 0 ? agent.attempts.size() + 1 : number, t));
                    a.finished = e;
                    a.end = t;
                    a.state = e.path("state").isTextual() ? e.path("state").asText() : "unknown";
                }
                case "turn" -> agent.current(e, t).turn(e).turn = e;
                case "message" -> agent.current(e, t).turn(e).messages.add(e);
                default -> agent.current(e, t).notes.add(e);
            }
        }

        /** Ends the attempts that never finished: at the next attempt's start, or the end of the trace. */
        private void close() {
            for (Agent agent : agents.values()) {
                for (int i = 0; i < agent.attempts.size(); i++) {
                    Attempt a = agent.attempts.get(i);
                    if (a.finished != null) continue;
                    boolean last = i == agent.attempts.size() - 1;
                    a.end = last ? end : agent.attempts.get(i + 1).start;
                    a.state = last ? "running" : "retried";
                }
            }
        }

        /** Rows in depth-first order, children by first start; agents whose parent never appears become top rows. */
        private void tree() {
            List<Agent> top = new ArrayList<>();
            for (Agent a : agents.values()) {
                Agent parent = a.parent() == null ? null : agents.get(a.parent());
                if (parent == null || parent == a) top.add(a);
                else parent.children.add(a);
            }
            Set<Agent> seen = new HashSet<>();
            visit(top, 0, seen);
            // Parent links that loop reach no top row; show those agents anyway.
            List<Agent> lost = new ArrayList<>();
            for (Agent a : agents.values()) if (!seen.contains(a)) lost.add(a);
            visit(lost, 0, seen);
        }

        private void visit(List<Agent> level, int depth, Set<Agent> seen) {
            List<Agent> sorted = new ArrayList<>(level);
            sorted.sort(Comparator.comparingDouble(a -> a.first)); // stable: ties keep trace order
            for (Agent a : sorted) {
                if (!seen.add(a)) continue;
                a.depth = depth;
                rows.add(a);
                visit(a.children, depth + 1, seen);
            }
        }

        double span() {
            return end > 0 ? end : 1;
        }

        // ---- the page ----

        String page(String title) {
            StringBuilder h = new StringBuilder(64 * 1024);
            h.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
                    .append("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src '")
                    .append(sha256(SCRIPT)).append("'\">\n")
                    .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
                    .append("<title>").append(esc(title)).append("</title>\n<style>").append(CSS).append("</style>\n</head>\n<body>\n");
            header(h, title);
            timeline(h);
            h.append("<script type=\"application/json\" id=\"trace-data\">").append(dataJson(title)).append("</script>\n");
            h.append("<script>").append(SCRIPT).append("</script>\n</body>\n</html>\n");
            return h.toString();
        }

        private void header(StringBuilder h, String title) {
            h.append("<header>\n<h1>").append(esc(title)).append("</h1>\n<div id=\"errors\"></div>\n<dl class=\"facts\">\n");
            h.append("<dt>Task</dt><dd>").append(swarmStarted == null ? "<i>no swarm_started event</i>" : pre(text(swarmStarted.path("task")))).append("</dd>\n");
            if (swarmStarted != null && swarmStarted.path("budget").isObject()) h.append("<dt>Budget</dt><dd>").append(pairs(swarmStarted.path("budget"))).append("</dd>\n");
            h.append("<dt>Answer</dt><dd>");
            if (swarmFinished == null) h.append("<i>the swarm has not finished</i>");
            else if (!swarmFinished.path("answer").isTextual()) h.append("<i>none</i>");
            else h.append(pre(swarmFinished.path("answer").asText()));
            h.append("</dd>\n");
            if (swarmFinished != null) {
                h.append("<dt>Missing</dt><dd>");
                JsonNode missing = swarmFinished.path("missing");
                if (!missing.isArray() || missing.isEmpty()) h.append("none");
                for (JsonNode m : missing) h.append("<code>").append(esc(text(m))).append("</code> ");
                h.append("</dd>\n");
            }
            if (!budgets.isEmpty()) {
                h.append("<dt>Budgets hit</dt><dd>");
                for (JsonNode b : budgets)
                    h.append("<div>").append(ms(b.path("t_ms").asDouble())).append(" ms <b>").append(esc(text(b.path("budget")))).append("</b> ")
                            .append(esc(text(b.path("agent")))).append(": ").append(esc(text(b.path("detail")))).append("</div>");
                h.append("</dd>\n");
            }
            h.append("</dl>\n");
            if (swarmFinished != null && swarmFinished.path("metrics").isObject()) {
                h.append("<table class=\"metrics\"><tr>");
                swarmFinished.path("metrics").fieldNames().forEachRemaining(k -> h.append("<th>").append(esc(k)).append("</th>"));
                h.append("</tr><tr>");
                swarmFinished.path("metrics").elements().forEachRemaining(v -> h.append("<td>").append(esc(text(v))).append("</td>"));
                h.append("</tr></table>\n");
            }
            if (!loose.isEmpty()) {
                h.append("<details class=\"loose\"><summary>").append(loose.size()).append(" events without an agent</summary>");
                for (JsonNode e : loose) h.append(pre(e.toString()));
                h.append("</details>\n");
            }
            h.append("</header>\n");
        }

        private void timeline(StringBuilder h) {
            h.append("<main>\n<div class=\"tools\"><input id=\"filter\" type=\"search\" placeholder=\"filter agents\" aria-label=\"filter agents\"> ")
                    .append("<button type=\"button\" id=\"open-all\">open all</button> <button type=\"button\" id=\"close-all\">close all</button> <span class=\"legend\">");
            for (String s : List.of("done", "failed", "cancelled", "skipped", "running", "retried"))
                h.append("<span class=\"swatch s-").append(s).append("\"></span>").append(s).append(' ');
            h.append("<span class=\"swatch plan\"></span>plan</span> <span class=\"count\">").append(rows.size()).append(" agents</span></div>\n");
            h.append("<div class=\"row axis\"><span class=\"label\">agent · mode · turns · tokens</span><span class=\"track\">");
            double step = tickStep(span());
            for (double x = 0; x <= span() + step / 1000; x += step)
                h.append("<span class=\"tick\" style=\"left:").append(pct(x)).append("%\">").append(ms(x)).append(" ms</span>");
            h.append("</span></div>\n");
            for (Agent a : rows) row(h, a);
            h.append("</main>\n");
        }

        private void row(StringBuilder h, Agent a) {
            int turns = 0;
            long tokens = 0;
            for (Attempt x : a.attempts) {
                turns += x.turnCount();
                tokens += x.tokens();
            }
            h.append("<details class=\"agent\" data-agent=\"").append(esc(a.path)).append("\" data-state=\"").append(esc(a.state())).append("\">")
                    .append("<summary class=\"row\"><span class=\"label\" style=\"padding-left:").append(a.depth * 1.1 + 0.3).append("rem\" title=\"")
                    .append(esc(a.path)).append("\"><b>").append(esc(a.name())).append("</b> <span class=\"mode\">").append(esc(a.mode()))
                    .append("</span> ").append(turns).append(" turns · ").append(tokens).append(" tok");
            if (a.attempts.size() > 1) h.append(" · ").append(a.attempts.size()).append(" attempts");
            h.append("</span><span class=\"track\">");
            for (Attempt x : a.attempts) {
                h.append("<span class=\"bar s-").append(cls(x.state)).append("\" style=\"left:").append(pct(x.start)).append("%;width:")
                        .append(pct(Math.max(0, x.end - x.start))).append("%\" title=\"").append(esc(a.path)).append(" attempt ").append(x.number)
                        .append(": ").append(esc(x.state)).append(", ").append(ms(x.start)).append("–").append(ms(x.end)).append(" ms, ")
                        .append(x.turnCount()).append(" turns, ").append(x.tokens()).append(" tokens\">");
                if (a.attempts.size() > 1) h.append(x.number);
                h.append("</span>");
                for (JsonNode n : x.notes) {
                    if (!text(n.path("kind")).equals("plan")) continue;
                    boolean ok = n.path("accepted").asBoolean(false);
                    h.append("<span class=\"mark plan").append(ok ? "" : " rejected").append("\" style=\"left:").append(pct(n.path("t_ms").asDouble(x.start)))
                            .append("%\" title=\"plan round ").append(esc(text(n.path("round")))).append(ok ? " accepted, " : " rejected, ")
                            .append(n.path("subtasks").size()).append(" sub-tasks at ").append(ms(n.path("t_ms").asDouble(x.start))).append(" ms\"></span>");
                }
            }
            h.append("</span></summary>\n<div class=\"body\">\n");
            body(h, a);
            h.append("</div></details>\n");
        }

        private void body(StringBuilder h, Agent a) {
            JsonNode s = a.started;
            h.append("<dl class=\"facts\"><dt>Path</dt><dd><code>").append(esc(a.path)).append("</code></dd>");
            if (a.parent() != null) h.append("<dt>Parent</dt><dd><code>").append(esc(a.parent())).append("</code></dd>");
            if (s != null) {
                h.append("<dt>Mode</dt><dd>").append(esc(a.mode())).append("</dd><dt>Goal</dt><dd>").append(pre(text(s.path("goal")))).append("</dd>");
                h.append("<dt>Depends on</dt><dd>");
                if (!s.path("depends_on").isArray() || s.path("depends_on").isEmpty()) h.append("nothing");
                for (JsonNode d : s.path("depends_on")) h.append("<code>").append(esc(text(d))).append("</code> ");
                h.append("</dd>");
            }
            h.append("</dl>\n");
            for (Attempt x : a.attempts) attempt(h, x);
        }

        private void attempt(StringBuilder h, Attempt x) {
            JsonNode f = x.finished;
            h.append("<section class=\"attempt\"><h4><span class=\"swatch s-").append(cls(x.state)).append("\"></span>Attempt ").append(x.number)
                    .append(" · ").append(esc(x.state)).append(" · ").append(ms(x.start)).append("–").append(ms(x.end)).append(" ms · ")
                    .append(x.turnCount()).append(" turns · ").append(x.tokens()).append(" tokens");
            if (f != null && f.path("stop_reason").isTextual()) h.append(" · stop: ").append(esc(f.path("stop_reason").asText()));
            if (x.started != null && x.started.path("episode_id").isTextual()) h.append(" · episode <code>").append(esc(x.started.path("episode_id").asText())).append("</code>");
            h.append("</h4>\n");
            if (f != null && f.path("error").isTextual()) h.append("<div class=\"error\"><b>Error</b>").append(pre(f.path("error").asText())).append("</div>\n");
            if (f != null && f.path("answer").isTextual()) h.append("<div class=\"answer\"><b>Answer</b>").append(pre(f.path("answer").asText())).append("</div>\n");
            for (JsonNode n : x.notes) note(h, n);
            for (Map.Entry<Integer, TurnGroup> e : x.turns.entrySet()) {
                TurnGroup g = e.getValue();
                h.append("<details class=\"turn\"><summary>turn ").append(e.getKey() < 0 ? "?" : e.getKey());
                if (g.turn != null)
                    h.append(" · ").append(ms(g.turn.path("t_ms").asDouble())).append(" ms · ").append(g.turn.path("tokens").asLong()).append(" tok · <code>")
                            .append(esc(text(g.turn.path("action")))).append("</code>");
                h.append(" <span class=\"dim\">").append(g.messages.size()).append(g.messages.size() == 1 ? " message" : " messages").append("</span></summary>\n");
                for (JsonNode m : g.messages) message(h, m);
                h.append("</details>\n");
            }
            h.append("</section>\n");
        }

        private static void note(StringBuilder h, JsonNode n) {
            String kind = text(n.path("kind"));
            h.append("<div class=\"note\"><span class=\"dim\">").append(ms(n.path("t_ms").asDouble())).append(" ms</span> ");
            switch (kind) {
                case "retry" -> h.append("<b>retry</b> → attempt ").append(esc(text(n.path("attempt")))).append(": ").append(esc(text(n.path("reason"))));
                case "budget_exhausted" -> h.append("<b>budget exhausted</b>: ").append(esc(text(n.path("budget")))).append(" — ").append(esc(text(n.path("detail"))));
                case "plan" -> {
                    boolean ok = n.path("accepted").asBoolean(false);
                    h.append("<b>plan round ").append(esc(text(n.path("round")))).append("</b> ").append(ok ? "accepted" : "<span class=\"bad\">rejected</span>");
                    if (n.path("stages").isArray() && !n.path("stages").isEmpty()) {
                        h.append(" · stages ");
                        int i = 0;
                        for (JsonNode stage : n.path("stages")) {
                            if (i++ > 0) h.append(" → ");
                            h.append('[');
                            int j = 0;
                            for (JsonNode id : stage) h.append(j++ > 0 ? ", " : "").append(esc(text(id)));
                            h.append(']');
                        }
                    }
                    if (n.path("subtasks").isArray() && !n.path("subtasks").isEmpty()) {
                        h.append("<table class=\"subtasks\"><tr><th>id</th><th>mode</th><th>depends on</th><th>goal</th></tr>");
                        for (JsonNode t : n.path("subtasks")) {
                            List<String> deps = new ArrayList<>();
                            for (JsonNode d : t.path("depends_on")) deps.add(text(d));
                            h.append("<tr><td>").append(esc(text(t.path("id")))).append("</td><td>").append(esc(text(t.path("mode")))).append("</td><td>")
                                    .append(esc(String.join(", ", deps))).append("</td><td>").append(esc(text(t.path("goal")))).append("</td></tr>");
                        }
                        h.append("</table>");
                    }
                    if (n.path("observation").isTextual()) h.append(pre(n.path("observation").asText()));
                }
                default -> h.append("<b>").append(esc(kind.isEmpty() ? "event" : kind)).append("</b>").append(pre(n.toString()));
            }
            h.append("</div>\n");
        }

        private static void message(StringBuilder h, JsonNode m) {
            String role = text(m.path("role"));
            h.append("<div class=\"msg r-").append(cls(role)).append("\"><span class=\"role\">").append(esc(role.isEmpty() ? "?" : role)).append("</span>");
            h.append(pre(text(m.path("content"))));
            if (m.path("tool_calls").isArray())
                for (JsonNode c : m.path("tool_calls")) {
                    JsonNode args = c.path("arguments");
                    h.append("<div class=\"call\">→ <code>").append(esc(text(c.path("name")))).append('(')
                            .append(esc(args.isTextual() ? args.asText() : args.isMissingNode() ? "" : args.toString())).append(")</code></div>");
                }
            h.append("</div>\n");
        }

        /** The tree without message contents: the page's script checks its rows against it, and tools can read it. */
        private String dataJson(String title) {
            ObjectNode d = Json.object();
            d.put("title", title);
            d.put("t_end_ms", end);
            if (swarmStarted != null) d.set("task", swarmStarted.path("task"));
            if (swarmFinished != null) {
                d.set("answer", swarmFinished.path("answer"));
                d.set("missing", swarmFinished.path("missing"));
                d.set("metrics", swarmFinished.path("metrics"));
            }
            ArrayNode list = d.putArray("agents");
            for (Agent a : rows) {
                ObjectNode o = list.addObject();
                o.put("path", a.path);
                o.put("parent", a.parent());
                o.put("depth", a.depth);
                o.put("mode", a.mode());
                o.put("state", a.state());
                ArrayNode attempts = o.putArray("attempts");
                for (Attempt x : a.attempts)
                    attempts.addObject().put("attempt", x.number).put("start_ms", x.start).put("end_ms", x.end).put("state", x.state)
                            .put("turns", x.turnCount()).put("tokens", x.tokens());
            }
            // Escaped so that no "</script>" in a string can close the element; JSON.parse reads \\u003c back as '<'.
            return Json.write(d).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026");
        }

        private String pct(double t) {
            return String.format(Locale.ROOT, "%.3f", 100 * t / span());
        }
    }

    // ---- helpers ----

    /** Trace text as HTML text or a double-quoted attribute value. */
    private static String esc(String s) {
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }

    /** Trace text between tags: quotes stay as they are, which keeps JSON-heavy tool output from growing. */
    private static String escText(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    private static String text(JsonNode n) {
        if (n == null || n.isMissingNode() || n.isNull()) return "";
        return n.isValueNode() ? n.asText() : n.toString();
    }

    /** A content block; long ones start clipped with a button to show them whole. */
    private static String pre(String s) {
        boolean isLong = s.length() > LONG_CHARS || s.chars().filter(c -> c == '\n').count() > LONG_LINES;
        if (!isLong) return "<pre>" + escText(s) + "</pre>";
        return "<pre class=\"long\">" + escText(s) + "</pre><button type=\"button\" class=\"expand\">show all " + s.length() + " chars</button>";
    }

    private static String pairs(JsonNode object) {
        StringBuilder b = new StringBuilder();
        object.fields().forEachRemaining(e -> b.append("<code>").append(esc(e.getKey())).append('=').append(esc(text(e.getValue()))).append("</code> "));
        return b.toString();
    }

    /** A CSS class suffix from a trace word: letters, digits and dashes only. */
    private static String cls(String s) {
        return s == null ? "" : s.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]", "-");
    }

    private static String ms(double t) {
        return t == Math.rint(t) && Math.abs(t) < 1e15 ? Long.toString((long) t) : String.format(Locale.ROOT, "%.1f", t);
    }

    /** A round step (1, 2 or 5 times a power of ten) giving about eight ticks. */
    private static double tickStep(double span) {
        double raw = span / 8;
        double power = Math.pow(10, Math.floor(Math.log10(raw)));
        for (double m : new double[] {1, 2, 5}) if (m * power >= raw) return m * power;
        return 10 * power;
    }

    private static String sha256(String script) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(script.getBytes(StandardCharsets.UTF_8));
            return "sha256-" + Base64.getEncoder().encodeToString(hash);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static final String CSS = """
            body { font: 13px/1.4 system-ui, sans-serif; margin: 0; color: #1d232a; background: #fff; }
            header { padding: 0.8rem 1rem; background: #f4f6f8; border-bottom: 1px solid #d8dde3; }
            h1 { font-size: 1.25rem; margin: 0 0 0.5rem; }
            h4 { margin: 0.6rem 0 0.3rem; font-size: 0.95rem; }
            pre { margin: 0.15rem 0; padding: 0.3rem 0.5rem; background: #f7f7f9; border: 1px solid #e4e6ea; border-radius: 3px;
                  white-space: pre-wrap; overflow-wrap: anywhere; font: 12px/1.35 ui-monospace, monospace; }
            pre.long { max-height: 14em; overflow: auto; }
            pre.long.open { max-height: none; }
            button { font: inherit; font-size: 0.8rem; cursor: pointer; }
            code { font: 12px ui-monospace, monospace; }
            .facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.2rem 0.8rem; margin: 0.3rem 0; }
            .facts dt { font-weight: 600; color: #555; }
            .facts dd { margin: 0; min-width: 0; }
            table { border-collapse: collapse; margin: 0.4rem 0; }
            th, td { border: 1px solid #d8dde3; padding: 0.15rem 0.5rem; text-align: left; vertical-align: top; }
            th { background: #eef1f4; font-weight: 600; }
            #errors { color: #a40000; font-weight: 600; white-space: pre-wrap; }
            #errors:empty { display: none; }
            main { padding: 0.5rem 1rem 2rem; }
            .tools { margin-bottom: 0.5rem; display: flex; gap: 0.5rem; align-items: center; flex-wrap: wrap; }
            .legend, .count, .dim { color: #666; }
            .row { display: grid; grid-template-columns: minmax(14rem, 22rem) 1fr; align-items: center; min-height: 1.3rem; }
            .label { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; padding-right: 0.5rem; }
            .mode { color: #6a5acd; font-size: 0.85em; }
            .track { position: relative; height: 1.1rem; margin-right: 3rem; background: #fafbfc; border-left: 1px solid #ccc; }
            .axis { position: sticky; top: 0; background: #fff; z-index: 2; border-bottom: 1px solid #ccc; color: #666; font-size: 0.8em; }
            .axis .track { background: none; }
            .tick { position: absolute; top: 0.1rem; border-left: 1px solid #bbb; padding-left: 2px; white-space: nowrap; }
            details.agent { border-bottom: 1px solid #f0f1f3; }
            details.agent > summary { list-style: none; cursor: pointer; }
            details.agent > summary::-webkit-details-marker { display: none; }
            details.agent > summary:hover { background: #f0f5ff; }
            details.agent > summary .label::before { content: "▸ "; color: #888; }
            details.agent[open] > summary .label::before { content: "▾ "; }
            .bar { position: absolute; top: 0.15rem; height: 0.8rem; min-width: 3px; border-radius: 2px; font-size: 0.65rem; line-height: 0.8rem;
                   color: #fff; text-align: center; overflow: hidden; box-sizing: border-box; background: #777; }
            .mark { position: absolute; top: 0; width: 0.55rem; height: 0.55rem; margin-left: -0.28rem; transform: rotate(45deg); z-index: 1; }
            .swatch { display: inline-block; width: 0.8rem; height: 0.8rem; border-radius: 2px; margin: 0 0.2rem 0 0.4rem; vertical-align: -0.1rem; }
            .s-done { background: #2e9d4f; }
            .s-failed { background: #d64545; }
            .s-cancelled { background: #e0913a; }
            .s-skipped { background: #9aa3ad; }
            .s-running { background: repeating-linear-gradient(45deg, #3a7bd5 0 6px, #6d9de3 6px 12px); }
            .s-retried { background: repeating-linear-gradient(45deg, #d64545 0 4px, #f0a0a0 4px 8px); }
            .plan, .mark.plan { background: #222; }
            .mark.plan.rejected { background: #fff; border: 2px solid #d64545; box-sizing: border-box; }
            .body { padding: 0.3rem 0.5rem 0.8rem 2rem; background: #fcfcfd; border-top: 1px dashed #e4e6ea; }
            .attempt { border-left: 3px solid #d8dde3; padding-left: 0.6rem; margin: 0.4rem 0; }
            .note { margin: 0.2rem 0; }
            .bad, .error b { color: #a40000; }
            .error pre { border-color: #e8b4b4; background: #fff5f5; }
            .answer pre { border-color: #b4dcc0; background: #f4fbf6; }
            details.turn { margin: 0.15rem 0; }
            details.turn > summary { cursor: pointer; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
            .msg { margin: 0.25rem 0 0.25rem 1rem; }
            .role { font-size: 0.75rem; font-weight: 600; text-transform: uppercase; color: #555; }
            .r-system .role { color: #8a6d00; } .r-user .role { color: #1b5fbf; } .r-assistant .role { color: #2e7d32; } .r-tool .role { color: #7b1fa2; }
            .call { margin-left: 0.5rem; color: #7b1fa2; }
            """;

    /** Expand/collapse and filtering only: everything else is already in the HTML. */
    private static final String SCRIPT = """
            (function () {
              var errors = document.getElementById('errors');
              function report(text) {
                var line = document.createElement('div');
                line.textContent = text;
                errors.appendChild(line);
              }
              window.onerror = function (message, source, line) { report('error: ' + message + ' (line ' + line + ')'); };
              try {
                var data = JSON.parse(document.getElementById('trace-data').textContent);
                var rows = document.querySelectorAll('details.agent');
                var byPath = new Map();
                rows.forEach(function (row) { byPath.set(row.dataset.agent, row); });
                data.agents.forEach(function (a) { if (!byPath.has(a.path)) throw new Error('no row for agent ' + a.path); });
                document.addEventListener('click', function (e) {
                  var b = e.target;
                  if (!b.classList || !b.classList.contains('expand')) return;
                  var open = b.previousElementSibling.classList.toggle('open');
                  if (!b.dataset.label) b.dataset.label = b.textContent;
                  b.textContent = open ? 'show less' : b.dataset.label;
                });
                function openAll(open) { rows.forEach(function (row) { if (!row.hidden) row.open = open; }); }
                document.getElementById('open-all').addEventListener('click', function () { openAll(true); });
                document.getElementById('close-all').addEventListener('click', function () { openAll(false); });
                document.getElementById('filter').addEventListener('input', function (e) {
                  var q = e.target.value.trim().toLowerCase();
                  rows.forEach(function (row) { row.hidden = q !== '' && row.dataset.agent.toLowerCase().indexOf(q) < 0; });
                });
                if (!errors.hasChildNodes()) document.body.dataset.rendered = String(data.agents.length);
              } catch (e) {
                report('rendering failed: ' + e);
              }
            })();
            """;
}
