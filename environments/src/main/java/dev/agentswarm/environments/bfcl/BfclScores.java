package dev.agentswarm.environments.bfcl;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * BFCL's leaderboard columns from per-category accuracies, as its eval runner combines them: the
 * non-live simple score is the plain mean of Python, Java and JavaScript; the non-live AST summary the
 * plain mean of simple, multiple, parallel and parallel multiple; live categories are weighted by their
 * size. A column is given only when every category it needs was evaluated, except the live one, which
 * without {@code live_multiple} (not in every data snapshot) is given as {@code live_ast_partial}.
 */
final class BfclScores {

    private static final List<String> SIMPLE = List.of("simple_python", "simple_java", "simple_javascript");
    private static final List<String> LIVE = List.of("live_simple", "live_multiple", "live_parallel", "live_parallel_multiple");

    private BfclScores() {}

    static Map<String, Double> summary(Map<String, Double> pass, Map<String, Integer> count) {
        Map<String, Double> out = new LinkedHashMap<>();
        Double simple = mean(pass, SIMPLE);
        if (simple != null) out.put("non_live_simple", simple);
        if (simple != null && pass.keySet().containsAll(List.of("multiple", "parallel", "parallel_multiple"))) {
            out.put("non_live_ast", (simple + pass.get("multiple") + pass.get("parallel") + pass.get("parallel_multiple")) / 4);
        }
        if (pass.containsKey("irrelevance")) out.put("non_live_irrelevance", pass.get("irrelevance"));
        double weighted = 0;
        int n = 0;
        boolean all = true;
        for (String c : LIVE) {
            if (!pass.containsKey(c)) {
                all = false;
                continue;
            }
            weighted += pass.get(c) * count.get(c);
            n += count.get(c);
        }
        if (n > 0) out.put(all ? "live_ast" : "live_ast_partial", weighted / n);
        if (pass.containsKey("live_irrelevance") && pass.containsKey("irrelevance")) {
            out.put("irrelevance", (pass.get("irrelevance") + pass.get("live_irrelevance")) / 2);
        }
        return out;
    }

    private static Double mean(Map<String, Double> pass, List<String> names) {
        if (!pass.keySet().containsAll(names)) return null;
        return names.stream().mapToDouble(pass::get).average().orElse(0);
    }
}
