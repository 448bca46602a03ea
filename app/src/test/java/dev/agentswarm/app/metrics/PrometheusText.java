package dev.agentswarm.app.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A reader of the Prometheus text format 0.0.4 for tests: samples by name and labels. */
public record PrometheusText(List<Sample> samples) {

    public record Sample(String name, Map<String, String> labels, double value) {}

    private static final Pattern LINE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})?\\s+(\\S+)(?:\\s+\\d+)?");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\",?");

    public static PrometheusText parse(String text) {
        List<Sample> samples = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) continue;
            Matcher m = LINE.matcher(line.strip());
            if (!m.matches()) throw new IllegalArgumentException("not a sample line: " + line);
            Map<String, String> labels = new LinkedHashMap<>();
            if (m.group(2) != null) {
                Matcher l = LABEL.matcher(m.group(2));
                while (l.find()) labels.put(l.group(1), l.group(2).replace("\\\"", "\"").replace("\\\\", "\\"));
            }
            samples.add(new Sample(m.group(1), labels, parseValue(m.group(3))));
        }
        return new PrometheusText(samples);
    }

    private static double parseValue(String v) {
        return switch (v) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> Double.parseDouble(v);
        };
    }

    /** The samples of {@code name} whose labels include {@code labels}. */
    public List<Sample> find(String name, Map<String, String> labels) {
        return samples.stream().filter(s -> s.name().equals(name) && s.labels().entrySet().containsAll(labels.entrySet())).toList();
    }

    /** The one sample of {@code name} with {@code labels}; fails when there is none or several. */
    public double value(String name, Map<String, String> labels) {
        List<Sample> found = find(name, labels);
        if (found.size() != 1) throw new AssertionError(found.size() + " samples of " + name + " " + labels + ": " + found);
        return found.get(0).value();
    }

    public double value(String name) {
        return value(name, Map.of());
    }

    /** The sum over every sample of {@code name} with {@code labels}. */
    public double sum(String name, Map<String, String> labels) {
        return find(name, labels).stream().mapToDouble(Sample::value).sum();
    }
}
