package dev.agentswarm.app;

import dev.agentswarm.app.cli.Report;
import dev.agentswarm.environments.eval.EvalReport;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The demo's comparison tables (SFT only against SFT + RL on held-out tasks), as Markdown and as JSON. */
public final class DemoReport {

    /** The figures each story compares, in the order its table shows them. */
    static final Map<String, List<String>> ROWS = Map.of(
            "grpo-tcr", List.of("pass_rate", "tool_success_rate", "reward", "valid_format_rate", "tokens_per_answer"),
            "dpo-discipline", List.of("filler_rate", "valid_format_rate", "tokens_per_answer", "pass_rate", "reward"));

    private DemoReport() {}

    /** The held-out figures a story table reads from an evaluation. */
    public static Map<String, Double> figures(EvalReport r) {
        Map<String, Double> f = new LinkedHashMap<>();
        f.put("pass_rate", r.means().getOrDefault("pass", 0.0));
        f.put("tool_success_rate", r.facts().get("tool_success_rate"));
        f.put("reward", r.means().get("reward"));
        f.put("valid_format_rate", r.facts().get("valid_format_rate"));
        f.put("filler_rate", r.facts().get("filler_rate"));
        f.put("tokens_per_answer", r.facts().get("tokens_per_answer"));
        f.put("tool_calls", r.facts().get("tool_calls"));
        f.put("answered", r.facts().get("answered"));
        return f;
    }

    /** The {@code stories} array of the demo's JSON line. */
    public static List<Map<String, Object>> json(List<Demo.Story> stories) {
        return stories.stream().map(s -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", s.name());
            m.put("seed", s.seed());
            m.put("suite", s.suite());
            Map<String, Object> heldout = new LinkedHashMap<>();
            heldout.put("tasks", s.rl().toMap().get("tasks"));
            heldout.put("sft", rounded(figures(s.sft())));
            heldout.put("rl", rounded(figures(s.rl())));
            m.put("heldout", heldout);
            m.put("training", s.training());
            return m;
        }).toList();
    }

    private static Map<String, Double> rounded(Map<String, Double> f) {
        Map<String, Double> out = new LinkedHashMap<>();
        f.forEach((k, v) -> out.put(k, v == null ? null : Report.round(v, 4)));
        return out;
    }

    /** One story's table: each figure after SFT, after the RL stage, the change and the relative change. */
    public static String table(Demo.Story s) {
        String rl = "SFT + " + s.training().getOrDefault("algorithm", "RL").toString().toUpperCase(Locale.ROOT);
        StringBuilder sb = new StringBuilder("| held-out | SFT | " + rl + " | change | relative |\n|---|---|---|---|---|\n");
        Map<String, Double> a = figures(s.sft());
        Map<String, Double> b = figures(s.rl());
        for (String k : ROWS.get(s.name())) {
            double x = a.get(k);
            double y = b.get(k);
            boolean rate = k.endsWith("_rate");
            String change = rate ? String.format(Locale.ROOT, "%+.1f points", 100 * (y - x)) : String.format(Locale.ROOT, "%+.3f", y - x);
            if (k.equals("tokens_per_answer")) change = String.format(Locale.ROOT, "%+.1f", y - x);
            String relative = x == 0 ? (y == 0 ? "0 %" : "—") : String.format(Locale.ROOT, "%+.0f %%", 100 * (y - x) / Math.abs(x));
            sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s |%n", k.replace('_', ' '), fmt(k, x), fmt(k, y), change, relative));
        }
        return sb.toString();
    }

    private static String fmt(String key, double v) {
        return key.equals("tokens_per_answer") ? String.format(Locale.ROOT, "%.1f", v) : String.format(Locale.ROOT, "%.3f", v);
    }

    public static String markdown(List<Demo.Story> stories, Map<String, Object> sft, double seconds, List<Path> charts, Path runDir) {
        StringBuilder sb = new StringBuilder("# agentswarm demo\n\n");
        sb.append(String.format(Locale.ROOT, "%.0f s in all. The embedded model was trained by SFT on noisy oracle demonstrations"
                + " (%s steps, loss %s → %s); each story continues from those same weights. Held-out tasks were never trained on;"
                + " SFT and SFT + RL are evaluated on the same tasks with the same sampling.%n%n", seconds, sft.get("steps"),
                sft.get("first_loss"), sft.get("final_loss")));
        for (Demo.Story s : stories) {
            sb.append("## ").append(s.name()).append(" (seed ").append(s.seed()).append(", ").append(s.suite()).append(")\n\n");
            sb.append(table(s)).append('\n');
            sb.append("Training: ");
            sb.append(String.join(", ", s.training().entrySet().stream().map(e -> e.getKey().replace('_', ' ') + " " + e.getValue()).toList()));
            sb.append(".\n\n");
        }
        for (Path c : charts) sb.append("![").append(c.getFileName()).append("](").append(runDir.relativize(c)).append(")\n\n");
        sb.append("Files: demonstrations.jsonl, sft/ (checkpoints, metrics.jsonl), grpo/ (trajectories.jsonl, metrics.jsonl,"
                + " checkpoints), dpo/ (rollouts.jsonl, metrics.jsonl, model.safetensors), eval-*/ (eval.md, eval.json,"
                + " trajectories.jsonl).\n");
        return sb.toString();
    }
}
