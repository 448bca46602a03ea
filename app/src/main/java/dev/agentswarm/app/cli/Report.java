package dev.agentswarm.app.cli;

import dev.agentswarm.core.json.Json;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a command reports: human-readable lines, and the same figures as one JSON object printed
 * as the very last line when {@code --json} is given (so scripts can read {@code tail -1}).
 */
public final class Report {

    private final List<String> lines = new ArrayList<>();
    private final Map<String, Object> figures = new LinkedHashMap<>();

    public Report line(String s) {
        lines.add(s);
        return this;
    }

    public Report put(String key, Object value) {
        figures.put(key, value);
        return this;
    }

    public Map<String, Object> figures() {
        return figures;
    }

    public void print(boolean json) {
        print(System.out, json);
    }

    public void print(PrintStream out, boolean json) {
        for (String l : lines) out.println(l);
        if (json) out.println(Json.write(figures));
        out.flush();
    }

    public static double round(double v, int digits) {
        double f = Math.pow(10, digits);
        return Math.round(v * f) / f;
    }
}
