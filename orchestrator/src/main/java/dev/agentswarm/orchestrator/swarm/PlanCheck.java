package dev.agentswarm.orchestrator.swarm;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads the arguments of a {@code spawn_subagents} call, {@code {"subtasks": [{"id", "goal", "mode",
 * "tools", "depends_on"}, …]}}, and checks them against what the swarm can offer: unknown or missing
 * fields, duplicate ids, unknown dependencies, cycles, tools not available, more sub-agents than the
 * budget allows. Every problem is collected, so one observation tells the orchestrator all it must
 * fix; a plan without problems comes with its stages.
 */
public final class PlanCheck {

    /**
     * What a plan may use: the tools sub-agents can be given, how many sub-agents it may spawn, and
     * whether a sub-task may be an orchestrator itself (not at the depth limit).
     */
    public record Limits(Set<String> tools, int maxSubAgents, boolean nestingAllowed) {
        public Limits {
            tools = Set.copyOf(tools);
            if (maxSubAgents < 0) throw new IllegalArgumentException("max sub-agents must be >= 0, got " + maxSubAgents);
        }

        public Limits(Set<String> tools, int maxSubAgents) {
            this(tools, maxSubAgents, true);
        }
    }

    /** The plan when it has no problems (else null), and the problems, each saying what to fix. */
    public record Result(Plan plan, List<String> problems) {
        public boolean ok() {
            return problems.isEmpty();
        }

        /** What the orchestrator's policy reads back for a refused plan. */
        public String observation() {
            StringBuilder b = new StringBuilder("The plan was not run. Fix these and call spawn_subagents again:");
            for (String p : problems) b.append("\n- ").append(p);
            return b.toString();
        }
    }

    private PlanCheck() {}

    public static Result check(JsonNode arguments, Limits limits) {
        List<String> problems = new ArrayList<>();
        JsonNode list = arguments == null ? null : arguments.get("subtasks");
        if (list == null || !list.isArray() || list.isEmpty()) {
            return new Result(null, List.of("\"subtasks\" must be a non-empty list of {\"id\", \"goal\", \"mode\", \"tools\", \"depends_on\"}"));
        }
        Map<String, SubTask> byId = new LinkedHashMap<>();
        for (int i = 0; i < list.size(); i++) {
            SubTask t = read(list.get(i), i, limits, problems);
            if (t == null) continue;
            if (byId.putIfAbsent(t.id(), t) != null) problems.add("sub-task id \"" + t.id() + "\" is used twice: ids must be unique");
        }
        if (list.size() > limits.maxSubAgents()) {
            problems.add(limits.maxSubAgents() == 0 ? "the budget of sub-agents is spent: finish with what you have"
                    : list.size() + " sub-tasks exceed the budget of " + limits.maxSubAgents() + " sub-agents left: merge some or drop some");
        }
        Join join = Join.read(arguments, list.size(), problems);
        for (SubTask t : byId.values()) {
            for (String d : t.dependsOn()) {
                if (d.equals(t.id())) problems.add("sub-task \"" + t.id() + "\" depends on itself");
                else if (!byId.containsKey(d)) problems.add("sub-task \"" + t.id() + "\" depends on \"" + d + "\", which is not in the plan");
            }
        }
        for (List<String> cycle : cycles(byId)) {
            problems.add("the dependencies form a cycle: " + String.join(" → ", cycle) + ": remove one of these depends_on");
        }
        if (!problems.isEmpty()) return new Result(null, List.copyOf(problems));
        return new Result(new Plan(new ArrayList<>(byId.values()), stages(byId), join), List.of());
    }

    private static SubTask read(JsonNode node, int index, Limits limits, List<String> problems) {
        String where = "sub-task " + (index + 1);
        if (node == null || !node.isObject()) {
            problems.add(where + " is not an object");
            return null;
        }
        String id = text(node, "id");
        if (id == null || id.isBlank()) {
            problems.add(where + " needs an \"id\" (a short unique name)");
            return null;
        }
        where = "sub-task \"" + id + "\"";
        String goal = text(node, "goal");
        if (goal == null || goal.isBlank()) problems.add(where + " needs a \"goal\" saying what it must find or do");
        SubAgentMode mode = SubAgentMode.GENERAL;
        String modeName = text(node, "mode");
        if (node.has("mode")) {
            Optional<SubAgentMode> m = modeName == null ? Optional.empty() : SubAgentMode.parse(modeName);
            if (m.isEmpty()) {
                problems.add(where + " has mode " + node.get("mode") + "; use one of "
                        + Arrays.stream(SubAgentMode.values()).map(SubAgentMode::wire).toList());
            } else {
                mode = m.get();
            }
        }
        if (mode == SubAgentMode.ORCHESTRATOR && !limits.nestingAllowed()) {
            problems.add(where + " is an orchestrator, but the swarm's depth limit is reached here: give it another mode");
        }
        List<String> tools = strings(node, "tools", where, problems);
        for (String tool : tools) {
            if (!limits.tools().contains(tool)) {
                problems.add(where + " asks for tool \"" + tool + "\", which is not available; available: " + new TreeSet<>(limits.tools()));
            }
        }
        List<String> dependsOn = strings(node, "depends_on", where, problems);
        return new SubTask(id, goal == null ? "" : goal, mode, tools, new ArrayList<>(new LinkedHashSet<>(dependsOn)));
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v != null && v.isTextual() ? v.asText() : null;
    }

    private static List<String> strings(JsonNode node, String field, String where, List<String> problems) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) return List.of();
        List<String> out = new ArrayList<>();
        if (!v.isArray()) {
            problems.add(where + ": \"" + field + "\" must be a list of names, got " + v);
            return out;
        }
        for (JsonNode e : v) {
            if (e.isTextual()) out.add(e.asText());
            else problems.add(where + ": \"" + field + "\" must hold names, got " + e);
        }
        return out;
    }

    /** Each cycle once, as ids from its smallest back round to it (edges run from a sub-task to what it depends on). */
    private static List<List<String>> cycles(Map<String, SubTask> byId) {
        Set<List<String>> found = new LinkedHashSet<>();
        Map<String, Integer> state = new HashMap<>(); // 1 = on the path, 2 = done
        for (String start : byId.keySet()) walk(start, byId, state, new ArrayList<>(), found);
        return new ArrayList<>(found);
    }

    private static void walk(String id, Map<String, SubTask> byId, Map<String, Integer> state, List<String> path, Set<List<String>> found) {
        Integer s = state.get(id);
        if (s != null && s == 2) return;
        if (s != null && s == 1) {
            List<String> cycle = new ArrayList<>(path.subList(path.indexOf(id), path.size()));
            int first = cycle.indexOf(cycle.stream().min(String::compareTo).orElseThrow());
            List<String> rotated = new ArrayList<>(cycle.subList(first, cycle.size()));
            rotated.addAll(cycle.subList(0, first));
            rotated.add(rotated.get(0));
            found.add(rotated);
            return;
        }
        state.put(id, 1);
        path.add(id);
        for (String d : byId.get(id).dependsOn()) if (byId.containsKey(d) && !d.equals(id)) walk(d, byId, state, path, found);
        path.remove(path.size() - 1);
        state.put(id, 2);
    }

    /** Kahn's layers over an acyclic plan, each stage in the plan's order. */
    private static List<List<String>> stages(Map<String, SubTask> byId) {
        List<List<String>> stages = new ArrayList<>();
        Set<String> done = new LinkedHashSet<>();
        while (done.size() < byId.size()) {
            List<String> stage = new ArrayList<>();
            for (SubTask t : byId.values()) if (!done.contains(t.id()) && done.containsAll(t.dependsOn())) stage.add(t.id());
            if (stage.isEmpty()) throw new IllegalStateException("stages of a plan with a cycle: " + byId.keySet()); // checked before
            done.addAll(stage);
            stages.add(stage);
        }
        return stages;
    }
}
