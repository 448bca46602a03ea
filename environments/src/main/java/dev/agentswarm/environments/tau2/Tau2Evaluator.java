package dev.agentswarm.environments.tau2;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * τ²-bench's reward for one conversation, as its evaluator computes it: 0 unless the conversation
 * ended by a stop (not a step limit or too many errors); otherwise the product of the components its
 * task's {@code reward_basis} names, each 0 or 1 —
 * <ul>
 *   <li>{@code db}: the databases after replaying the conversation's writes on a fresh environment
 *       equal those after running the gold actions on another (their failures ignored);</li>
 *   <li>{@code env_assertion}: every assertion of the task holds on the replayed environment;</li>
 *   <li>{@code action}: every gold action was called (same name and, on the compared arguments, the
 *       same values; order, count and who called do not matter);</li>
 *   <li>{@code communicate}: every required string appears, lower-cased, in some agent message with its
 *       commas removed;</li>
 *   <li>{@code nl_assertion}: an LLM judge's verdict, which this evaluator does not give: a task whose
 *       basis needs it is reported with that component skipped and no reward.</li>
 * </ul>
 */
public final class Tau2Evaluator {

    /** The components computed (1 or 0), those skipped, and the reward (null when a skipped component gates it). */
    public record Result(Map<String, Double> components, Set<String> skipped, Double reward) {}

    private Tau2Evaluator() {}

    /**
     * @param fresh makes the domain's environment as a task starts (a fresh copy of its databases)
     * @param stopped whether the conversation ended by the user's or the agent's stop
     */
    public static Result evaluate(JsonNode task, List<Tau2Message> trajectory, boolean stopped, Supplier<Tau2Environment> fresh) {
        JsonNode criteria = task.path("evaluation_criteria");
        Set<String> basis = new HashSet<>();
        JsonNode basisNode = criteria.path("reward_basis");
        if (basisNode.isArray()) basisNode.forEach(b -> basis.add(b.asText()));
        else basis.addAll(List.of("DB", "COMMUNICATE"));
        Map<String, Double> c = new LinkedHashMap<>();
        Set<String> skipped = new HashSet<>();
        if (criteria.isMissingNode() || criteria.isNull()) return new Result(c, skipped, stopped ? 1.0 : 0.0);

        boolean noEnvCheck = isNull(criteria.get("actions")) && isNull(criteria.get("env_assertions"));
        double db = 1;
        double assertions = 1;
        if (!noEnvCheck) {
            Tau2Environment predicted = fresh.get();
            predicted.setState(task.get("initial_state"), List.of());
            predicted.replay(trajectory);
            Tau2Environment gold = fresh.get();
            gold.setState(task.get("initial_state"), history(task));
            for (JsonNode action : criteria.path("actions")) {
                try {
                    gold.makeToolCall(action.path("name").asText(), Tau2Message.Requestor.parse(action.path("requestor").asText("assistant")),
                            action.path("arguments"));
                } catch (RuntimeException e) {
                    // τ² logs a failing gold action and goes on: some are meant to fail (an order that cannot be exchanged).
                }
            }
            db = predicted.sameState(gold) ? 1 : 0;
            for (JsonNode a : criteria.path("env_assertions")) if (!predicted.holds(a)) assertions = 0;
        }
        c.put("db", db);
        c.put("env_assertion", assertions);
        c.put("action", actions(criteria.path("actions"), trajectory));
        c.put("communicate", communicated(criteria.path("communicate_info"), trajectory));
        JsonNode nl = criteria.path("nl_assertions");
        boolean needsJudge = basis.contains("NL_ASSERTION") && nl.isArray() && !nl.isEmpty();
        if (needsJudge) skipped.add("nl_assertion");

        double reward = 1;
        if (basis.contains("DB")) reward *= db;
        if (basis.contains("ENV_ASSERTION")) reward *= assertions;
        if (basis.contains("ACTION")) reward *= c.get("action");
        if (basis.contains("COMMUNICATE")) reward *= c.get("communicate");
        if (!stopped) reward = 0;
        // Without the judge, a task it gates has a reward only if another component already failed it.
        Double result = needsJudge && reward > 0 ? null : reward;
        return new Result(c, skipped, result);
    }

    private static boolean isNull(JsonNode n) {
        return n == null || n.isNull();
    }

    /** The task's own message history, which the gold environment replays before its actions. */
    static List<Tau2Message> history(JsonNode task) {
        return Tau2Messages.parse(task.path("initial_state").path("message_history"));
    }

    /** Every gold action matched by some call of the conversation, agent's or user's. */
    static double actions(JsonNode gold, List<Tau2Message> trajectory) {
        if (!gold.isArray() || gold.isEmpty()) return 1;
        for (JsonNode action : gold) {
            boolean found = false;
            for (Tau2Message m : trajectory) {
                for (Tau2Message.Call call : m.calls()) {
                    if (matches(action, call)) {
                        found = true;
                        break;
                    }
                }
                if (found) break;
            }
            if (!found) return 0;
        }
        return 1;
    }

    /** τ²'s compare_with_tool_call: the compared keys are compare_args, or else the call's own arguments. */
    static boolean matches(JsonNode action, Tau2Message.Call call) {
        if (!action.path("name").asText().equals(call.name())) return false;
        JsonNode args = call.arguments() == null ? Json.MAPPER.createObjectNode() : call.arguments();
        JsonNode goldArgs = action.path("arguments");
        List<String> keys = new java.util.ArrayList<>();
        JsonNode compare = action.get("compare_args");
        if (compare != null && !compare.isNull()) compare.forEach(k -> keys.add(k.asText()));
        else args.fieldNames().forEachRemaining(keys::add);
        if (keys.isEmpty()) return true;
        Map<String, JsonNode> mine = new LinkedHashMap<>();
        Map<String, JsonNode> theirs = new LinkedHashMap<>();
        for (String k : keys) {
            if (args.has(k)) mine.put(k, args.get(k));
            if (goldArgs.has(k)) theirs.put(k, goldArgs.get(k));
        }
        if (!mine.keySet().equals(theirs.keySet())) return false;
        for (String k : mine.keySet()) if (!pythonEqual(mine.get(k), theirs.get(k))) return false;
        return true;
    }

    /** Python's == on JSON values: numbers by value (1 == 1.0), everything else structurally. */
    static boolean pythonEqual(JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) return a.decimalValue().compareTo(b.decimalValue()) == 0;
        if (a.isArray() && b.isArray()) {
            if (a.size() != b.size()) return false;
            for (int i = 0; i < a.size(); i++) if (!pythonEqual(a.get(i), b.get(i))) return false;
            return true;
        }
        if (a.isObject() && b.isObject()) {
            if (a.size() != b.size()) return false;
            for (Iterator<String> it = a.fieldNames(); it.hasNext(); ) {
                String k = it.next();
                if (!b.has(k) || !pythonEqual(a.get(k), b.get(k))) return false;
            }
            return true;
        }
        return a.equals(b);
    }

    /** Every required string in some agent message: lower-cased, the message without its commas. */
    static double communicated(JsonNode info, List<Tau2Message> trajectory) {
        if (!info.isArray() || info.isEmpty()) return 1;
        for (JsonNode s : info) {
            String want = s.asText().toLowerCase(Locale.ROOT);
            boolean met = false;
            for (Tau2Message m : trajectory) {
                if (m.role() != Tau2Message.Role.ASSISTANT || m.content() == null || m.content().isBlank()) continue;
                if (m.content().toLowerCase(Locale.ROOT).replace(",", "").contains(want)) {
                    met = true;
                    break;
                }
            }
            if (!met) return 0;
        }
        return 1;
    }
}
