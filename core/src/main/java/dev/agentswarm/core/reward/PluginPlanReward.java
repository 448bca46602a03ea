package dev.agentswarm.core.reward;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.format.JsonPlanFormat;
import dev.agentswarm.core.protocol.Completion;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Seed 004's plugin-selection reward, term by term (total in [−0.20, {@value #MAX}]: the seed calls
 * it a 0–1 reward, but its terms add up to 0.95 for a perfect plan, and a valid plan of only wrong
 * picks earns 0.10 − 0.30; it is not clipped):
 * 0.10 valid JSON; 0.15 all picks in the candidate list; 0.25 × correct picked / total correct;
 * 0.20 bonus for no wrong picks; −0.10 × wrong picks (at most 3 counted); 0.10 exact count;
 * 0.15 × hydration ratio. "Valid JSON" means a plan was read: an object with a {@code plugins}
 * array, after an optional {@code <think>…</think>}; anything else scores 0 on every term and never
 * throws. A wrong pick is a pick that is not a correct id, counted per pick (a duplicate of a correct
 * id is not wrong, but breaks the count). A plan with no picks earns neither the candidates term nor
 * the no-wrong bonus (an empty plan is not a careful one).
 *
 * <p>Hydration ratio: the share of picks whose {@code api_request_parameters} is a non-empty object
 * whose every value, nested ones included, is concrete: not null, not blank, not an empty object or
 * array, not a placeholder ({@code <…>}, {@code {…}}, "…", "TODO", "TBD", "placeholder", "xxx",
 * "example", anything with "example.com", {@code YOUR_…}/{@code insert-…} names, {@code {{…}}} or
 * {@code ${…}} templates, a bare type name such as "string"). The model's own
 * {@code all_parameters_hydrated} flag is not trusted.
 *
 * <p>The facts of seed 004's evaluation table come with the score: JSON valid, plugin-ID match
 * (picked set = correct set), count match, no hallucinated plugin, hydrated (every pick), and the
 * dependency chain (every dependency is a picked plugin, none is cyclic, and each correct pick
 * depends on exactly what the gold plan says).
 */
public final class PluginPlanReward {

    /** Component names, as the breakdown and the evaluation table use them. */
    public static final List<String> TERMS = List.of("valid_json", "in_candidates", "recall", "no_wrong_bonus",
            "wrong_penalty", "exact_count", "hydration");
    public static final List<String> FACTS = List.of("json_valid", "id_match", "count_match", "no_hallucination",
            "hydrated", "deps_chain");

    /** What a perfect plan earns. */
    public static final double MAX = 0.95;

    private static final JsonPlanFormat FORMAT = new JsonPlanFormat();
    private static final Set<String> PLACEHOLDERS = Set.of("todo", "tbd", "placeholder", "xxx", "string", "integer",
            "number", "boolean", "value", "n/a", "none", "null", "example", "...", "…");
    private static final Pattern PLACEHOLDER_TEXT = Pattern.compile("^(?:your|insert|enter)[_-]|\\{\\{|\\$\\{");

    private PluginPlanReward() {}

    /**
     * @param text the model's output: optional {@code <think>…</think>}, then the JSON plan
     * @param goldDependencies for each correct plugin id, the ids it must run after
     */
    public static Score score(String text, List<String> candidates, Map<String, List<String>> goldDependencies) {
        List<String> correct = new ArrayList<>(goldDependencies.keySet());
        JsonNode plan = text == null ? null : FORMAT.parse(Completion.ofText(text, 0, 0), List.of()).plan();
        JsonNode steps = plan == null ? null : plan.get("plugins");
        Map<String, Double> terms = new LinkedHashMap<>();
        for (String t : TERMS) terms.put(t, 0.0);
        Map<String, Double> facts = new LinkedHashMap<>();
        for (String f : FACTS) facts.put(f, 0.0);
        if (steps == null || !steps.isArray()) return new Score(0, terms, facts);

        terms.put("valid_json", 0.10);
        facts.put("json_valid", 1.0);
        List<String> picks = new ArrayList<>();
        Map<String, Set<String>> dependencies = new HashMap<>();
        int hydratedPicks = 0;
        for (JsonNode step : steps) {
            String id = step.path("pluginId").asText("");
            picks.add(id);
            Set<String> deps = new HashSet<>();
            step.path("dependencies").forEach(d -> deps.add(d.asText()));
            dependencies.put(id, deps);
            if (hydrated(step.get("api_request_parameters"))) hydratedPicks++;
        }
        Set<String> picked = new HashSet<>(picks);
        int correctPicked = (int) correct.stream().filter(picked::contains).count();
        int wrong = (int) picks.stream().filter(p -> !correct.contains(p)).count();
        boolean allCandidates = !picks.isEmpty() && candidates.containsAll(picks);
        double hydration = picks.isEmpty() ? 0 : (double) hydratedPicks / picks.size();

        terms.put("in_candidates", allCandidates ? 0.15 : 0.0);
        terms.put("recall", correct.isEmpty() ? 0.0 : 0.25 * correctPicked / correct.size());
        terms.put("no_wrong_bonus", !picks.isEmpty() && wrong == 0 ? 0.20 : 0.0);
        terms.put("wrong_penalty", wrong == 0 ? 0.0 : -0.10 * Math.min(wrong, 3));
        terms.put("exact_count", picks.size() == correct.size() ? 0.10 : 0.0);
        terms.put("hydration", 0.15 * hydration);

        facts.put("id_match", picked.equals(new HashSet<>(correct)) && picks.size() == picked.size() ? 1.0 : 0.0);
        facts.put("count_match", picks.size() == correct.size() ? 1.0 : 0.0);
        facts.put("no_hallucination", allCandidates ? 1.0 : 0.0);
        facts.put("hydrated", !picks.isEmpty() && hydratedPicks == picks.size() ? 1.0 : 0.0);
        facts.put("deps_chain", dependencyChain(picked, dependencies, goldDependencies) ? 1.0 : 0.0);
        double total = terms.values().stream().mapToDouble(Double::doubleValue).sum();
        return new Score(total, terms, facts);
    }

    /** The weighted terms (summing to the total) and the table's 0/1 facts. */
    public record Score(double total, Map<String, Double> terms, Map<String, Double> facts) {}

    static boolean hydrated(JsonNode params) {
        return params != null && params.isObject() && !params.isEmpty() && concrete(params);
    }

    private static boolean concrete(JsonNode v) {
        if (v == null || v.isNull() || v.isMissingNode()) return false;
        if (v.isContainerNode()) {
            if (v.isEmpty()) return false;
            for (JsonNode child : v) if (!concrete(child)) return false;
            return true;
        }
        String s = v.asText().strip();
        String lower = s.toLowerCase(Locale.ROOT);
        return !(s.isEmpty() || PLACEHOLDERS.contains(lower) || lower.contains("example.com") || PLACEHOLDER_TEXT.matcher(lower).find()
                || (s.startsWith("<") && s.endsWith(">")) || (s.startsWith("{") && s.endsWith("}")));
    }

    private static boolean dependencyChain(Set<String> picked, Map<String, Set<String>> deps, Map<String, List<String>> gold) {
        for (var e : deps.entrySet()) {
            for (String d : e.getValue()) if (!picked.contains(d) || d.equals(e.getKey())) return false;
            List<String> expected = gold.get(e.getKey());
            if (expected != null && !new HashSet<>(expected).equals(e.getValue())) return false;
        }
        // Acyclic: repeatedly remove plugins whose dependencies are all removed.
        Set<String> done = new HashSet<>();
        boolean progress = true;
        while (progress) {
            progress = false;
            for (var e : deps.entrySet()) {
                if (!done.contains(e.getKey()) && done.containsAll(e.getValue())) {
                    done.add(e.getKey());
                    progress = true;
                }
            }
        }
        return done.size() == deps.size();
    }
}
