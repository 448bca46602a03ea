package dev.agentswarm.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The live tree of a running swarm, fed with its trace events: each agent's state, turns and last
 * action, children under their orchestrator. On a terminal the tree is redrawn in place four times a
 * second; into a file or a pipe each start, end, plan and retry is one line, so logs stay readable.
 * Events arrive on the orchestrators' threads, so everything here is synchronized.
 */
public final class SwarmView implements Consumer<ObjectNode>, AutoCloseable {

    /** Rows drawn on a terminal; the rest are summed up in one line. */
    private static final int MAX_ROWS = 40;

    private static final class Row {
        final String agent;
        String mode = "";
        String state = "waiting";
        int attempt = 1;
        int turns;
        long tokens;
        String last = "";

        Row(String agent) {
            this.agent = agent;
        }
    }

    private final PrintStream out;
    private final boolean live;
    private final Map<String, Row> rows = new LinkedHashMap<>();
    private final ScheduledExecutorService redraw;
    private int drawnLines;
    private long startNanos = System.nanoTime();

    private SwarmView(PrintStream out, boolean live) {
        this.out = out;
        this.live = live;
        this.redraw = live ? Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "swarm-view");
            t.setDaemon(true);
            return t;
        }) : null;
        if (live) redraw.scheduleAtFixedRate(this::draw, 250, 250, TimeUnit.MILLISECONDS);
    }

    /** A view on stderr: redrawn in place on a terminal, one line per event otherwise. */
    public static SwarmView onStderr() {
        return new SwarmView(System.err, System.console() != null);
    }

    /** A view that prints one line per significant event (tests, logs). */
    public static SwarmView lines(PrintStream out) {
        return new SwarmView(out, false);
    }

    @Override
    public synchronized void accept(ObjectNode e) {
        String agent = e.path("agent").asText();
        String kind = e.path("kind").asText();
        switch (kind) {
            case "swarm_started" -> startNanos = System.nanoTime();
            case "agent_started" -> {
                Row r = row(agent);
                r.mode = e.path("mode").asText();
                r.state = "running";
                r.attempt = e.path("attempt").asInt(1);
                r.turns = 0;
                r.last = "";
                line(e, agent + " started (" + r.mode + (r.attempt > 1 ? ", attempt " + r.attempt : "") + ")");
            }
            case "turn" -> {
                Row r = row(agent);
                r.turns = e.path("turn").asInt();
                r.tokens = e.path("tokens").asLong();
                r.last = e.path("action").asText();
            }
            case "plan" -> {
                if (!e.path("accepted").asBoolean()) {
                    row(agent).last = "plan refused";
                    line(e, agent + " plan refused: " + firstLine(e.path("observation").asText()));
                } else {
                    List<String> ids = new ArrayList<>();
                    for (JsonNode t : e.path("subtasks")) {
                        Row child = row(t.path("agent").asText());
                        child.mode = t.path("mode").asText();
                        ids.add(t.path("id").asText());
                    }
                    line(e, agent + " round " + e.path("round").asInt() + ": " + ids.size() + " sub-agents " + ids
                            + ", join " + e.path("join").asText());
                }
            }
            case "retry" -> {
                row(agent).state = "retrying";
                line(e, agent + " retry " + e.path("attempt").asInt() + ": " + firstLine(e.path("reason").asText()));
            }
            case "agent_finished" -> {
                Row r = row(agent);
                r.state = e.path("state").asText();
                r.turns = e.path("turns").asInt();
                r.tokens = e.path("tokens").asLong();
                String answer = e.path("answer").isTextual() ? e.path("answer").asText() : null;
                r.last = answer != null ? "answer: " + answer : e.path("error").asText("");
                line(e, agent + " " + r.state + " after " + r.turns + " turns" + (r.last.isEmpty() ? "" : ": " + firstLine(r.last)));
            }
            case "budget_exhausted" -> line(e, agent + " budget spent: " + e.path("detail").asText());
            // Times from here on count from the resume (its process's start).
            case "swarm_resumed" -> line(e, agent + " resumed from its journal (" + e.path("events").asLong() + " events, "
                    + e.path("running").asInt() + " agents running again)");
            default -> { }
        }
    }

    private Row row(String agent) {
        return rows.computeIfAbsent(agent, Row::new);
    }

    private void line(JsonNode e, String text) {
        if (live) return;
        out.printf("[%7.1f s] %s%n", e.path("t_ms").asDouble() / 1000, cut(text, 160));
    }

    /** The tree as text lines: agents under their orchestrator, in the order they appeared. */
    public synchronized List<String> tree() {
        List<String> lines = new ArrayList<>();
        Map<String, List<Row>> children = new LinkedHashMap<>();
        List<Row> roots = new ArrayList<>();
        for (Row r : rows.values()) {
            int slash = r.agent.lastIndexOf('/');
            String parent = slash < 0 ? null : r.agent.substring(0, slash);
            if (parent == null || !rows.containsKey(parent)) roots.add(r);
            else children.computeIfAbsent(parent, k -> new ArrayList<>()).add(r);
        }
        for (Row r : roots) walk(r, "", "", children, lines);
        return lines;
    }

    private void walk(Row r, String lead, String childLead, Map<String, List<Row>> children, List<String> lines) {
        String name = r.agent.substring(r.agent.lastIndexOf('/') + 1);
        StringBuilder b = new StringBuilder(lead).append(name).append("  ").append(r.mode).append("  ").append(r.state);
        if (r.attempt > 1) b.append(" (attempt ").append(r.attempt).append(')');
        if (r.turns > 0) b.append("  ").append(r.turns).append(r.turns == 1 ? " turn" : " turns");
        if (!r.last.isEmpty()) b.append("  ").append(firstLine(r.last));
        lines.add(cut(b.toString(), 150));
        List<Row> kids = children.getOrDefault(r.agent, List.of());
        for (int i = 0; i < kids.size(); i++) {
            boolean lastKid = i == kids.size() - 1;
            walk(kids.get(i), childLead + (lastKid ? "└─ " : "├─ "), childLead + (lastKid ? "   " : "│  "), children, lines);
        }
    }

    /** Redraws the tree in place: cursor up over the last drawing, clear to the end, draw. */
    private synchronized void draw() {
        List<String> lines = tree();
        List<String> shown = lines.size() <= MAX_ROWS ? lines : new ArrayList<>(lines.subList(0, MAX_ROWS));
        if (lines.size() > MAX_ROWS) shown.add("… " + (lines.size() - MAX_ROWS) + " more agents");
        StringBuilder b = new StringBuilder();
        if (drawnLines > 0) b.append("\033[").append(drawnLines).append("A\033[J");
        b.append(String.format("swarm  %.1f s%n", (System.nanoTime() - startNanos) / 1e9));
        for (String l : shown) b.append(l).append('\n');
        out.print(b);
        out.flush();
        drawnLines = shown.size() + 1;
    }

    private static String firstLine(String s) {
        String t = s.strip();
        int nl = t.indexOf('\n');
        return nl < 0 ? t : t.substring(0, nl);
    }

    private static String cut(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 1) + "…";
    }

    /** Stops redrawing, after one last drawing of the final tree. */
    @Override
    public void close() {
        if (!live) return;
        redraw.shutdownNow();
        draw();
    }
}
