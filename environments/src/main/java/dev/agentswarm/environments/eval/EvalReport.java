package dev.agentswarm.environments.eval;

import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.environments.EpisodeOutcome;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What {@code swarm eval} prints: every reward component's mean over all episodes and by task
 * category, the reward total, episode facts (turns, tool calls, tool success rate, answered share),
 * and pass@k / pass^k over the samples of each task. Plain data in, plain data out: the terminal
 * tables, the JSON line and the Markdown report are views of {@link #toMap()}.
 */
public final class EvalReport {

    /** One finished episode of a task. */
    public record Episode(Task task, Trajectory trajectory) {}

    private final String suite;
    private final String split;
    private final String policy;
    private final List<String> columns;
    private final int episodes;
    private final int tasks;
    private final int samples;
    private final Map<String, Double> means;
    private final Map<String, Map<String, Double>> byCategory;
    private final Map<String, Integer> categoryCounts;
    private final Map<String, Double> facts;
    private final Map<Integer, double[]> passK;
    /** The benchmark's headline figures its suite derives from the categories (see {@code Suite.summary}). */
    private final Map<String, Double> summary;

    /** How a suite turns the share passed per category and the episodes per category into its headline figures. */
    public interface Summary {
        Map<String, Double> of(Map<String, Double> passByCategory, Map<String, Integer> countByCategory);
    }

    /**
     * @param columns the components this suite's table shows first (the seeds' columns); every
     *     other component follows
     * @param categoryKey the task metadata key that groups tasks (e.g. {@code category}, {@code hops}); may be null
     */
    public EvalReport(String suite, String split, String policy, List<String> columns, String categoryKey, List<Episode> runs) {
        this(suite, split, policy, columns, categoryKey, runs, (pass, count) -> Map.of());
    }

    /** As above, with the suite's headline figures made from the categories' pass rates. */
    public EvalReport(String suite, String split, String policy, List<String> columns, String categoryKey, List<Episode> runs,
                      Summary summary) {
        if (runs.isEmpty()) throw new IllegalArgumentException("no episodes to report on");
        this.suite = suite;
        this.split = split;
        this.policy = policy;
        this.episodes = runs.size();
        Map<String, List<Episode>> perTask = new LinkedHashMap<>();
        for (Episode e : runs) perTask.computeIfAbsent(e.task().id(), k -> new ArrayList<>()).add(e);
        this.tasks = perTask.size();
        this.samples = perTask.values().stream().mapToInt(List::size).min().orElse(1);

        Sums all = new Sums();
        Map<String, Sums> cats = new TreeMap<>();
        for (Episode e : runs) {
            all.add(e.trajectory());
            if (categoryKey != null) {
                String cat = e.task().metadata().getOrDefault(categoryKey, "—");
                cats.computeIfAbsent(cat, k -> new Sums()).add(e.trajectory());
            }
        }
        List<String> ordered = new ArrayList<>(columns);
        for (String name : all.sums.keySet()) if (!ordered.contains(name)) ordered.add(name);
        this.columns = List.copyOf(ordered);
        this.means = all.means(ordered);
        this.byCategory = new LinkedHashMap<>();
        this.categoryCounts = new LinkedHashMap<>();
        cats.forEach((cat, s) -> {
            byCategory.put(cat, s.means(ordered));
            categoryCounts.put(cat, s.n);
        });
        this.facts = all.facts();
        Map<String, Double> passByCategory = new LinkedHashMap<>();
        byCategory.forEach((cat, m) -> passByCategory.put(cat, m.getOrDefault("pass", 0.0)));
        this.summary = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(summary.of(passByCategory, categoryCounts)));
        this.passK = new LinkedHashMap<>();
        for (int k = 1; k <= samples; k++) {
            double at = 0;
            double hat = 0;
            for (List<Episode> group : perTask.values()) {
                int n = group.size();
                int c = (int) group.stream().filter(EvalReport::passed).count();
                at += PassAtK.passAt(n, c, k);
                hat += PassAtK.passHat(n, c, k);
            }
            passK.put(k, new double[] {at / tasks, hat / tasks});
        }
    }

    /** An episode passes when its suite's {@code pass} component is 1 (no reward: it did not). */
    public static boolean passed(Episode e) {
        RewardBreakdown r = e.trajectory().reward();
        return r != null && r.components().getOrDefault("pass", 0.0) >= 1.0;
    }

    /** Component and total sums over some episodes. */
    private static final class Sums {
        final Map<String, Double> sums = new LinkedHashMap<>();
        int n;
        double total;
        double turns;
        double toolCalls;
        double toolSuccesses;
        int answered;
        int errors;
        int filler;
        int validFormat;
        long completionTokens;

        void add(Trajectory t) {
            n++;
            RewardBreakdown r = t.reward();
            if (r != null) {
                total += r.total();
                r.components().forEach((k, v) -> sums.merge(k, v, Double::sum));
            }
            EpisodeOutcome o = EpisodeOutcome.of(t);
            turns += o.assistantTurns();
            toolCalls += o.toolCalls();
            toolSuccesses += o.toolSuccesses();
            if (t.stopReason().completed()) answered++;
            if (t.error() != null) errors++;
            if (Discipline.hasFiller(t)) filler++;
            if (Discipline.validFormat(t)) validFormat++;
            completionTokens += Discipline.completionTokens(t);
        }

        Map<String, Double> means(List<String> order) {
            Map<String, Double> m = new LinkedHashMap<>();
            for (String c : order) if (sums.containsKey(c)) m.put(c, sums.get(c) / n);
            m.put("reward", total / n);
            return m;
        }

        Map<String, Double> facts() {
            Map<String, Double> f = new LinkedHashMap<>();
            f.put("turns", turns / n);
            f.put("tool_calls", toolCalls / n);
            f.put("tool_success_rate", toolCalls == 0 ? 0.0 : toolSuccesses / toolCalls);
            f.put("answered", (double) answered / n);
            f.put("errors", (double) errors);
            f.put("filler_rate", (double) filler / n);
            f.put("valid_format_rate", (double) validFormat / n);
            f.put("tokens_per_answer", (double) completionTokens / n);
            return f;
        }
    }

    public Map<String, Double> means() {
        return means;
    }

    public Map<Integer, double[]> passK() {
        return passK;
    }

    public Map<String, Double> facts() {
        return facts;
    }

    /** The suite's headline figures (empty for most suites). */
    public Map<String, Double> summary() {
        return summary;
    }

    /** Everything, for the JSON line: suite, split, policy, counts, means, facts, by category, pass@k and pass^k. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("suite", suite);
        m.put("split", split);
        m.put("policy", policy);
        m.put("tasks", tasks);
        m.put("episodes", episodes);
        m.put("samples_per_task", samples);
        m.put("means", means);
        m.put("facts", facts);
        Map<String, Object> cats = new LinkedHashMap<>();
        byCategory.forEach((cat, v) -> {
            Map<String, Object> c = new LinkedHashMap<>(v);
            c.put("episodes", categoryCounts.get(cat));
            cats.put(cat, c);
        });
        m.put("by_category", cats);
        if (!summary.isEmpty()) m.put("summary", summary);
        Map<String, Double> at = new LinkedHashMap<>();
        Map<String, Double> hat = new LinkedHashMap<>();
        passK.forEach((k, v) -> {
            at.put(Integer.toString(k), v[0]);
            hat.put(Integer.toString(k), v[1]);
        });
        m.put("pass_at_k", at);
        m.put("pass_hat_k", hat);
        return m;
    }

    /** The report as Markdown: the suite's table, by category, pass@k and pass^k, episode facts. */
    public String toMarkdown() {
        StringBuilder sb = new StringBuilder();
        sb.append("# Evaluation: ").append(suite).append(" (").append(split).append(")\n\n");
        sb.append("Policy: ").append(policy).append(". ").append(tasks).append(" tasks × ").append(samples)
                .append(" samples = ").append(episodes).append(" episodes.\n\n");
        List<String> shown = new ArrayList<>(columns.stream().filter(means::containsKey).toList());
        shown.add("reward");
        sb.append(row("", shown)).append(separator(shown.size() + 1));
        sb.append(row("all", shown.stream().map(c -> fmt(means.get(c))).toList()));
        byCategory.forEach((cat, v) -> sb.append(row(cat + " (" + categoryCounts.get(cat) + ")",
                shown.stream().map(c -> fmt(v.get(c))).toList())));
        if (!summary.isEmpty()) {
            sb.append("\n| ").append(String.join(" | ", summary.keySet())).append(" |\n").append(separator(summary.size()));
            sb.append("| ").append(String.join(" | ", summary.values().stream().map(EvalReport::fmt).toList())).append(" |\n");
        }
        sb.append("\n| k | pass@k | pass^k |\n|---|---|---|\n");
        passK.forEach((k, v) -> sb.append("| ").append(k).append(" | ").append(fmt(v[0])).append(" | ").append(fmt(v[1])).append(" |\n"));
        sb.append("\n| turns | tool calls | tool success rate | answered | errors | filler rate | valid format | tokens per answer |\n")
                .append(separator(8));
        sb.append(String.format(Locale.ROOT, "| %.2f | %.2f | %s | %s | %.0f | %s | %s | %.1f |%n", facts.get("turns"),
                facts.get("tool_calls"), fmt(facts.get("tool_success_rate")), fmt(facts.get("answered")), facts.get("errors"),
                fmt(facts.get("filler_rate")), fmt(facts.get("valid_format_rate")), facts.get("tokens_per_answer")));
        return sb.toString();
    }

    private static String row(String first, List<String> cells) {
        return "| " + first + " | " + String.join(" | ", cells) + " |\n";
    }

    private static String separator(int n) {
        return "|" + "---|".repeat(n) + "\n";
    }

    static String fmt(Double v) {
        return v == null ? "—" : String.format(Locale.ROOT, "%.3f", v);
    }
}
