package dev.agentswarm.core.format;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.ToolSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The plugin-orchestrator plan: optional {@code <think>…</think>}, then one JSON object
 * {@code {"plugins": [{"pluginId", "name", "description", "identifier", "method",
 * "api_request_parameters", "all_parameters_hydrated", "dependencies"}]}}. The plan is the
 * answer: there are no tool calls. Structural problems are errors, but the parsed plan is kept
 * so that rewards can still score a partly right plan.
 */
public final class JsonPlanFormat implements ToolCallFormat {

    public static final String NAME = "json-plan";

    /** The shape the prompt asks for and every error repeats. */
    static final String PLAN_SHAPE = "{\"plugins\": [{\"pluginId\": \"<pluginId from the candidates>\", "
            + "\"name\": \"<plugin name>\", \"description\": \"<what this step does>\", "
            + "\"identifier\": \"<e.g. rest_api>\", \"method\": \"<e.g. POST>\", "
            + "\"api_request_parameters\": {<every parameter with a concrete value>}, "
            + "\"all_parameters_hydrated\": true, \"dependencies\": [<pluginIds that must run first>]}]}";

    /** Opening braces tried as the start of the plan: prose may hold a few, a plan never needs more. */
    private static final int MAX_STARTS = 64;

    /**
     * Unclosed braces tried: after a truncated plan, inner braces only find its steps, and each try
     * scans to the end of the text.
     */
    private static final int MAX_UNCLOSED = 8;

    /** Characters brace matching may scan in total, so a completion of a million braces stays cheap. */
    private static final int SCAN_BUDGET = 4_000_000;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String toolsPrompt(List<ToolSpec> tools) {
        StringBuilder sb = new StringBuilder("Candidate plugins:\n[");
        boolean first = true;
        if (tools != null) {
            for (ToolSpec t : tools) {
                if (t == null) continue;
                ObjectNode c = Json.object();
                c.put("pluginId", Objects.toString(t.name(), ""));
                c.put("description", Objects.toString(t.description(), ""));
                c.set("parameters", FormatSupport.parametersOf(t));
                sb.append(first ? "\n  " : ",\n  ").append(FormatSupport.pyJson(c));
                first = false;
            }
        }
        sb.append(first ? "]" : "\n]");
        sb.append("\n\nPick the plugins the request needs, order them by their dependencies and fill every API "
                + "parameter with a concrete value. Reason inside <think></think> first, then answer with exactly one "
                + "JSON object of this shape:\n")
                .append(PLAN_SHAPE)
                .append("\nUse only pluginIds from the candidates, list each plugin once, name in \"dependencies\" the "
                        + "pluginIds that must run before it (no cycles), and use no placeholders.");
        return sb.toString();
    }

    @Override
    public ParsedCompletion parse(Completion completion, List<ToolSpec> tools) {
        return FormatSupport.guarded(completion, () -> read(completion.text(), completion.finishReason()));
    }

    private ParsedCompletion read(String text, FinishReason finish) {
        FormatSupport.ThinkSplit ts = FormatSupport.splitThink(text, null);
        // an unclosed <think> may still be followed by the plan: look for it in the whole remainder
        String search = ts.unclosed() ? ts.think() : ts.rest();
        String think = ts.unclosed() ? "" : ts.think();
        String cutOff = finish == FinishReason.LENGTH ? " (the completion was cut off by the token limit)" : "";

        // next "plugins" key at or after the current start; starts only grow, so the scan stays linear
        int plugins = -2;
        int from = 0;
        int budget = SCAN_BUDGET;
        boolean sawBrace = false;
        JsonNode fallback = null;
        int fbStart = -1;
        int fbEnd = -1;
        String firstProblem = null;
        String planProblem = null;
        int unclosed = 0;
        for (int attempt = 0; attempt < MAX_STARTS && budget > 0; attempt++) {
            int start = search.indexOf('{', from);
            if (start < 0) break;
            sawBrace = true;
            if (plugins != -1 && plugins < start) plugins = search.indexOf("\"plugins\"", start);
            int end = FormatSupport.matchBrace(search, start, budget);
            budget -= (end < 0 ? search.length() : end + 1) - start;
            boolean holdsPlugins = plugins >= 0 && (end < 0 || plugins < end);
            if (end >= 0 && !looksLikeObject(search, start) && firstProblem != null
                    && (!holdsPlugins || planProblem != null)) {
                // prose braces ("{pluginId}") cannot be JSON, and their error would not be reported
                from = end + 1;
                continue;
            }
            String problem;
            if (end < 0) {
                if (++unclosed > MAX_UNCLOSED) break;
                problem = "the JSON object starting with \"" + FormatSupport.snippet(search.substring(start,
                        Math.min(search.length(), start + 60)), 60) + "\" is never closed with '}'" + cutOff;
                // the brace may be prose: try the next one
                from = start + 1;
            } else {
                String candidate = search.substring(start, end + 1);
                budget -= candidate.length();
                try {
                    JsonNode node = FormatSupport.parseJson(candidate);
                    if (node.has("plugins")) {
                        String prose = FormatSupport.joinParts(List.of(think, search.substring(0, start),
                                search.substring(end + 1)));
                        return validate(node, prose);
                    }
                    if (fallback == null) {
                        fallback = node;
                        fbStart = start;
                        fbEnd = end;
                    }
                    from = end + 1;
                    continue;
                } catch (JsonProcessingException e) {
                    problem = "invalid JSON: " + FormatSupport.describe(e) + " in \"" + FormatSupport.snippet(candidate, 120) + "\"";
                    // look inside a broken object only when the plan may be nested in it
                    from = holdsPlugins ? start + 1 : end + 1;
                }
            }
            if (firstProblem == null) firstProblem = problem;
            if (holdsPlugins && planProblem == null) planProblem = problem;
        }

        String how = "; answer with one JSON object: " + PLAN_SHAPE;
        if (planProblem != null) {
            return new ParsedCompletion(FormatSupport.joinParts(List.of(think, search)), List.of(), null,
                    List.of(planProblem + how), null);
        }
        if (fallback != null) {
            String prose = FormatSupport.joinParts(List.of(think, search.substring(0, fbStart), search.substring(fbEnd + 1)));
            return new ParsedCompletion(prose, List.of(), null, List.of("the JSON object has no \"plugins\" array (keys: "
                    + FormatSupport.snippet(String.join(", ", fieldNames(fallback)), 120) + ")" + how), fallback);
        }
        String thought = FormatSupport.joinParts(List.of(think, search));
        if (firstProblem != null) return new ParsedCompletion(thought, List.of(), null, List.of(firstProblem + how), null);
        String why = !sawBrace
                ? (text.isBlank() ? "empty completion: no JSON plan" : "no JSON object found") + cutOff
                : "no complete JSON object found" + cutOff;
        if (ts.unclosed() && !sawBrace) why += " (the reasoning started with <think> was never closed with </think>)";
        return new ParsedCompletion(thought, List.of(), null, List.of(why + how), null);
    }

    /** Whether the brace at {@code start} opens what could be a JSON object: a key or an immediate '}'. */
    private static boolean looksLikeObject(String s, int start) {
        int i = start + 1;
        while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\n' || s.charAt(i) == '\r' || s.charAt(i) == '\t')) i++;
        return i < s.length() && (s.charAt(i) == '"' || s.charAt(i) == '}');
    }

    private static List<String> fieldNames(JsonNode n) {
        List<String> names = new ArrayList<>();
        n.fieldNames().forEachRemaining(names::add);
        return names;
    }

    /** Checks the plan's structure; the plan is returned whatever it finds, the answer only if it is sound. */
    private static ParsedCompletion validate(JsonNode plan, String thought) {
        List<String> errors = new ArrayList<>();
        JsonNode steps = plan.get("plugins");
        if (!steps.isArray()) {
            errors.add("\"plugins\" must be an array of plugin steps, got " + FormatSupport.typeName(steps)
                    + "; answer with " + PLAN_SHAPE);
            return new ParsedCompletion(thought, List.of(), null, errors, plan);
        }
        Map<String, Integer> index = new LinkedHashMap<>();
        Map<String, List<String>> deps = new HashMap<>();
        for (int i = 0; i < steps.size(); i++) {
            JsonNode step = steps.get(i);
            String at = "plugins[" + i + "]";
            if (!step.isObject()) {
                errors.add(at + " must be an object with \"pluginId\" and its parameters, got "
                        + FormatSupport.typeName(step) + " " + FormatSupport.snippet(step.toString(), 60));
                continue;
            }
            JsonNode idNode = step.get("pluginId");
            if (idNode == null || !idNode.isTextual() || idNode.asText().isBlank()) {
                errors.add(at + " needs \"pluginId\": a non-empty string from the candidate list ("
                        + (idNode == null ? "it is missing" : "got " + FormatSupport.snippet(idNode.toString(), 60)) + ")");
                continue;
            }
            String id = idNode.asText();
            String who = at + " (" + FormatSupport.snippet(id, 60) + ")";
            if (index.containsKey(id)) {
                errors.add("duplicate pluginId \"" + FormatSupport.snippet(id, 60) + "\" in plugins[" + index.get(id)
                        + "] and " + at + "; list each plugin once and merge its parameters");
                continue;
            }
            index.put(id, i);
            JsonNode params = step.get("api_request_parameters");
            if (params != null && !params.isNull() && !params.isObject()) {
                errors.add(who + ": \"api_request_parameters\" must be an object of parameter names to values, got "
                        + FormatSupport.typeName(params));
            }
            List<String> ds = new ArrayList<>();
            JsonNode dn = step.get("dependencies");
            if (dn != null && !dn.isNull()) {
                if (!dn.isArray()) {
                    errors.add(who + ": \"dependencies\" must be an array of pluginId strings, got "
                            + FormatSupport.typeName(dn) + " " + FormatSupport.snippet(dn.toString(), 60));
                } else {
                    for (int j = 0; j < dn.size(); j++) {
                        JsonNode d = dn.get(j);
                        if (d.isTextual()) {
                            ds.add(d.asText());
                        } else {
                            errors.add(who + ": dependencies[" + j + "] must be a pluginId string, got "
                                    + FormatSupport.typeName(d) + " " + FormatSupport.snippet(d.toString(), 60));
                        }
                    }
                }
            }
            deps.put(id, ds);
        }
        for (Map.Entry<String, Integer> e : index.entrySet()) {
            for (String d : deps.get(e.getKey())) {
                if (!index.containsKey(d)) {
                    errors.add("plugins[" + e.getValue() + "] (" + FormatSupport.snippet(e.getKey(), 60) + ") depends on \""
                            + FormatSupport.snippet(d, 60) + "\", which is not a pluginId of this plan (it has: "
                            + FormatSupport.snippet(String.join(", ", index.keySet()), 200)
                            + "); add that plugin as a step or remove the dependency");
                }
            }
        }
        findCycles(index, deps, errors);
        if (!errors.isEmpty()) return new ParsedCompletion(thought, List.of(), null, FormatSupport.capErrors(errors), plan);
        return new ParsedCompletion(thought, List.of(), Json.write(plan), List.of(), plan);
    }

    /**
     * Depth-first search with an explicit stack (a plan may be long, the thread stack is not); every
     * edge back into the current path closes a cycle, reported as the path around it.
     */
    private static void findCycles(Map<String, Integer> index, Map<String, List<String>> deps, List<String> errors) {
        Map<String, Integer> state = new HashMap<>(); // absent: unvisited, 1: on the path, 2: done
        for (String root : index.keySet()) {
            if (state.containsKey(root)) continue;
            List<String> path = new ArrayList<>();
            List<Integer> next = new ArrayList<>();
            Map<String, Integer> onPath = new HashMap<>();
            path.add(root);
            next.add(0);
            onPath.put(root, 0);
            state.put(root, 1);
            while (!path.isEmpty()) {
                int top = path.size() - 1;
                String node = path.get(top);
                List<String> ds = deps.get(node);
                int k = next.get(top);
                if (k < ds.size()) {
                    next.set(top, k + 1);
                    String d = ds.get(k);
                    if (!index.containsKey(d)) continue;
                    Integer s = state.get(d);
                    if (s == null) {
                        onPath.put(d, path.size());
                        path.add(d);
                        next.add(0);
                        state.put(d, 1);
                    } else if (s == 1) {
                        List<String> cycle = new ArrayList<>(path.subList(onPath.get(d), path.size()));
                        cycle.add(d);
                        errors.add("dependency cycle: " + FormatSupport.snippet(String.join(" -> ", cycle), 300)
                                + "; a plugin cannot depend on itself, even through others: remove one of these dependencies");
                    }
                } else {
                    path.remove(top);
                    next.remove(top);
                    onPath.remove(node);
                    state.put(node, 2);
                }
            }
        }
    }

    /** The plan is the whole answer, as written. */
    @Override
    public Message assistantMessage(Completion completion, ParsedCompletion parsed) {
        return Message.assistant(completion.text());
    }

    /** Plans call no tools; kept for orchestrators that feed plugin results back anyway. */
    @Override
    public List<Message> observations(List<ToolResult> results) {
        return FormatSupport.userObservation(results, "\n\n",
                r -> "Result of " + r.name() + " (" + r.callId() + "):\n" + Objects.toString(r.content(), ""));
    }

    @Override
    public Message formatFeedback(List<String> errors) {
        return Message.user("Your plan could not be used:\n" + FormatSupport.bullets(errors)
                + "\nAnswer again with your reasoning inside <think></think>, then exactly one JSON object:\n" + PLAN_SHAPE);
    }

    @Override
    public Completion write(String thought, List<ToolCall> calls, String answer) {
        FormatSupport.requireCallsOrAnswer(calls, answer);
        if (answer == null) throw new IllegalArgumentException("a plan has no tool calls: the plan is the answer");
        return Completion.ofText(FormatSupport.thinkBlock(thought) + answer, 0, 0);
    }
}
