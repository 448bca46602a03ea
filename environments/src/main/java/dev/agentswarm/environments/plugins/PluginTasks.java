package dev.agentswarm.environments.plugins;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.environments.GeneratedTasks;
import dev.agentswarm.environments.Split;
import dev.agentswarm.environments.plugins.PluginCatalogue.Plugin;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Plugin-orchestration tasks in the shape of seed 004: a user request composed from 1–4 plugin
 * asks ("…, then …" makes the later step depend on the earlier one, "…, and also …" does not), a
 * pool of {@code candidates} plugins (the right ones among distractors, shuffled), and the gold
 * plan. The prompt is the seed's: the candidates as JSON, then the request.
 */
final class PluginTasks {

    static final String CANDIDATES = "candidates";
    static final String CORRECT = "correct";
    static final String CATEGORY = "category";

    private PluginTasks() {}

    static List<Task> generate(String suite, PluginCatalogue catalogue, Split split, int limit, long seed, int candidates,
                               int maxSteps) {
        return GeneratedTasks.generate(suite, split, limit, seed,
                rnd -> draft(rnd, catalogue, 1 + rnd.nextInt(maxSteps), candidates), Draft::signature, (id, meta, d) -> {
                    meta.put(CATEGORY, d.steps.size() + "_step");
                    meta.put(CANDIDATES, String.join(",", d.pool.stream().map(Plugin::id).toList()));
                    meta.put(CORRECT, String.join(",", d.steps.stream().map(s -> s.plugin.id()).toList()));
                    // The gold plan is the task's answer.
                    return new Task(id, prompt(d), Json.write(d.plan()), meta);
                });
    }

    private record Step(Plugin plugin, Map<String, String> values, boolean dependsOnPrevious) {}

    private record Draft(List<Step> steps, List<Plugin> pool, String request, String signature) {

        ObjectNode plan() {
            ObjectNode root = Json.object();
            ArrayNode list = root.putArray("plugins");
            for (int i = 0; i < steps.size(); i++) {
                Step s = steps.get(i);
                ObjectNode p = list.addObject();
                p.put("pluginId", s.plugin.id());
                p.put("name", s.plugin.name());
                p.put("description", s.plugin.description());
                p.put("identifier", "rest_api");
                p.put("method", s.plugin.method());
                ObjectNode params = p.putObject("api_request_parameters");
                s.values.forEach(params::put);
                p.put("all_parameters_hydrated", true);
                ArrayNode deps = p.putArray("dependencies");
                if (s.dependsOnPrevious) deps.add(steps.get(i - 1).plugin.id());
            }
            return root;
        }
    }

    private static Draft draft(SplittableRandom rnd, PluginCatalogue catalogue, int stepCount, int candidates) {
        List<Plugin> all = new ArrayList<>(catalogue.plugins());
        shuffle(all, rnd);
        List<Step> steps = new ArrayList<>();
        StringBuilder request = new StringBuilder("I want to ");
        StringBuilder signature = new StringBuilder();
        for (int i = 0; i < stepCount; i++) {
            Plugin p = all.get(i);
            Map<String, String> values = new LinkedHashMap<>();
            Set<String> used = new HashSet<>();
            for (var param : p.parameterTypes().entrySet()) {
                List<String> pool = catalogue.values().get(param.getValue());
                String v;
                do {
                    v = pool.get(rnd.nextInt(pool.size()));
                } while (!used.add(v)); // two parameters of one type (from/to) never share a value
                values.put(param.getKey(), v);
            }
            boolean depends = i > 0 && rnd.nextInt(10) < 6;
            if (i > 0) request.append(depends ? ", then " : ", and also ");
            String ask = p.ask();
            for (var v : values.entrySet()) ask = ask.replace("{" + v.getKey() + "}", v.getValue());
            request.append(ask);
            signature.append(p.id()).append(values).append(depends).append(';');
            steps.add(new Step(p, values, depends));
        }
        request.append('.');
        List<Plugin> pool = new ArrayList<>(all.subList(0, Math.max(candidates, stepCount)));
        shuffle(pool, rnd);
        return new Draft(steps, pool, request.toString(), signature.toString());
    }

    private static String prompt(Draft d) {
        ArrayNode list = Json.MAPPER.createArrayNode();
        for (Plugin p : d.pool) {
            ObjectNode c = list.addObject();
            c.put("pluginId", p.id());
            c.put("name", p.name());
            c.put("description", p.description());
            c.put("identifier", "rest_api");
            c.put("method", p.method());
            ObjectNode params = c.putObject("parameters");
            p.parameterTypes().keySet().forEach(name -> params.put(name, "string"));
        }
        return "YOUR TASK IS TO GENERATE A JSON STRICTLY and CORRECTLY\n" + list.toPrettyString() + "\n\nUser Request: " + d.request;
    }

    private static <T> void shuffle(List<T> list, SplittableRandom rnd) {
        for (int i = list.size() - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            T t = list.get(i);
            list.set(i, list.get(j));
            list.set(j, t);
        }
    }
}
