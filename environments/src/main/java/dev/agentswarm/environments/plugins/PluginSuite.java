package dev.agentswarm.environments.plugins;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.Config;
import dev.agentswarm.core.environment.TaskEnvironment;
import dev.agentswarm.core.format.JsonPlanFormat;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
import dev.agentswarm.core.reward.PluginPlanReward;
import dev.agentswarm.core.reward.RewardWeights;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.environments.Oracle;
import dev.agentswarm.environments.Split;
import dev.agentswarm.environments.Suite;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Seed 004's plugin orchestration: pick the right plugins among {@code candidates}, order them by
 * their dependencies and hydrate every parameter, answering with one JSON plan (no tool calls).
 * Components: {@code plan} (the seed's reward), each of its terms, the facts of the seed's table
 * (json_valid, id_match, count_match, no_hallucination, hydrated, deps_chain) and {@code pass} (a
 * perfect plan, which earns the seed's maximum of 0.95). A plan that never became a final answer (format errors until the last turn) is
 * still scored from the last completion, so a partly right plan earns partial credit.
 */
public final class PluginSuite implements Suite {

    public static final String NAME = "plugins";
    private static final String SYSTEM = "You are an AI agent orchestrator. Given a user request and available plugins/tools,"
            + " generate a precise multi-step execution plan as a valid JSON object. Each step must use available plugins with"
            + " correct parameters, proper types, and valid JSON formatting.";

    private final PluginCatalogue catalogue;
    private final long seed;
    private final int candidates;
    private final int maxSteps;
    private final int maxTurns;
    private final RewardWeights weights;

    public PluginSuite(long seed, int candidates, int maxSteps, int maxTurns, RewardWeights weights) {
        this.catalogue = PluginCatalogue.load("/plugins/catalogue.json");
        if (maxSteps < 1 || maxSteps > candidates) {
            throw new IllegalArgumentException("plugins: need 1 <= max-steps <= candidates, got max-steps " + maxSteps
                    + " and candidates " + candidates);
        }
        if (candidates > catalogue.plugins().size()) {
            throw new IllegalArgumentException("plugins: candidates " + candidates + " exceeds the catalogue's "
                    + catalogue.plugins().size() + " plugins");
        }
        if (maxTurns < 1) throw new IllegalArgumentException("plugins: max-turns must be >= 1, got " + maxTurns);
        Set<String> produced = new HashSet<>(PluginPlanReward.TERMS);
        produced.addAll(PluginPlanReward.FACTS);
        produced.add("plan");
        produced.add("pass");
        weights.requireKnown(NAME, produced);
        this.seed = seed;
        this.candidates = candidates;
        this.maxSteps = maxSteps;
        this.maxTurns = maxTurns;
        this.weights = weights;
    }

    /** From an {@code agentswarm.environments.plugins} block. */
    public static PluginSuite fromConfig(Config c) {
        return new PluginSuite(c.getLong("seed"), c.getInt("candidates"), c.getInt("max-steps"), c.getInt("max-turns"),
                RewardWeights.fromConfig(c.getConfig("reward")));
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "plugin orchestration (seed 004): pick, order and hydrate plugins from " + candidates + " candidates as a JSON plan";
    }

    @Override
    public List<Task> tasks(Split split, int limit) {
        return PluginTasks.generate(NAME, catalogue, split, limit, seed, candidates, maxSteps);
    }

    @Override
    public EpisodeSpec spec(EpisodeSpec defaults) {
        return defaults.withFormat(JsonPlanFormat.NAME).withTools(List.of()).withSystemPrompt(SYSTEM).withMaxTurns(maxTurns);
    }

    @Override
    public List<Tool> tools() {
        return List.of();
    }

    @Override
    public TaskEnvironment open(Task task, String episodeId) {
        List<String> pool = idsOf(task, PluginTasks.CANDIDATES);
        Map<String, List<String>> gold = goldDependencies(task);
        return new TaskEnvironment() {
            @Override
            public RewardBreakdown score(Trajectory t) {
                PluginPlanReward.Score s = PluginPlanReward.score(planText(t), pool, gold);
                Map<String, Double> c = new LinkedHashMap<>();
                c.put("plan", s.total());
                c.putAll(s.facts());
                c.putAll(s.terms());
                c.put("pass", s.total() >= PluginPlanReward.MAX - 1e-9 ? 1.0 : 0.0);
                return weights.combine(c);
            }

            @Override
            public void close() {}
        };
    }

    /** The final answer, or else the last completion: a plan that kept failing the format still gets partial credit. */
    private static String planText(Trajectory t) {
        if (t.finalAnswer() != null) return t.finalAnswer();
        List<Turn> assistant = t.assistantTurns();
        return assistant.isEmpty() ? null : assistant.get(assistant.size() - 1).text();
    }

    private static List<String> idsOf(Task task, String key) {
        String v = task.metadata().get(key);
        if (v == null || v.isBlank()) throw new IllegalArgumentException("plugin task " + task.id() + " has no '" + key + "' metadata");
        return List.of(v.split(","));
    }

    private static Map<String, List<String>> goldDependencies(Task task) {
        JsonNode plan;
        try {
            plan = Json.MAPPER.readTree(task.answer() == null ? "" : task.answer());
        } catch (Exception e) {
            throw new IllegalArgumentException("plugin task " + task.id() + " has no readable gold plan: " + e.getMessage());
        }
        if (plan == null || !plan.path("plugins").isArray()) {
            throw new IllegalArgumentException("plugin task " + task.id() + ": the gold plan has no \"plugins\" array");
        }
        Map<String, List<String>> gold = new LinkedHashMap<>();
        for (JsonNode p : plan.get("plugins")) {
            List<String> deps = new ArrayList<>();
            p.path("dependencies").forEach(d -> deps.add(d.asText()));
            gold.put(p.path("pluginId").asText(), deps);
        }
        return gold;
    }

    @Override
    public List<String> reportColumns() {
        return List.of("plan", "json_valid", "id_match", "count_match", "no_hallucination", "hydrated", "deps_chain", "pass");
    }

    @Override
    public String categoryKey() {
        return PluginTasks.CATEGORY;
    }

    @Override
    public Optional<Oracle> oracle() {
        return Optional.of(new PluginOracle());
    }
}
