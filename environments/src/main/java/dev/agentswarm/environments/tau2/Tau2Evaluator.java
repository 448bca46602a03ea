package dev.agentswarm.environments.tau2;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.json.PythonEquality;
import dev.agentswarm.core.reward.TurnCredit;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
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

    /**
     * The components computed (1 or 0), those skipped, the reward (null when a skipped component gates it),
     * and how many checks of each kind held (for seed 003's partial credit).
     */
    public record Result(Map<String, Double> components, Set<String> skipped, Double reward, TurnCredit.Checks actions,
                         TurnCredit.Checks communicate, TurnCredit.Checks assertions, TurnCredit.Checks db) {
    }

    private Tau2Evaluator() {}

    /**
     * @param fresh makes the domain's environment as a task starts (a fresh copy of its databases)
     * @param stopped whether the conversation ended by the user's or the agent's stop
     */
    public static Result evaluate(JsonNode task, List<Tau2Message> trajectory, boolean stopped, Supplier<Tau2Environment> fresh) {
        return evaluate(task, trajectory, stopped, fresh, (t, predicted) -> predicted.sameState(goldState(t, fresh)));
    }

    /**
     * As above, with {@code matchesGold} telling whether a replayed environment holds the databases the task's
     * gold actions leave ({@link #goldState}); a domain answers it from what it kept of each task's gold.
     */
    public static Result evaluate(JsonNode task, List<Tau2Message> trajectory, boolean stopped, Supplier<Tau2Environment> fresh,
                                  java.util.function.BiPredicate<JsonNode, Tau2Environment> matchesGold) {
        JsonNode criteria = task.path("evaluation_criteria");
        Set<String> basis = new HashSet<>();
        JsonNode basisNode = criteria.path("reward_basis");
        if (basisNode.isArray()) basisNode.forEach(b -> basis.add(b.asText()));
        else basis.addAll(List.of("DB", "COMMUNICATE"));
        Map<String, Double> c = new LinkedHashMap<>();
        Set<String> skipped = new HashSet<>();
        if (criteria.isMissingNode() || criteria.isNull()) {
            return new Result(c, skipped, stopped ? 1.0 : 0.0, TurnCredit.Checks.NONE, TurnCredit.Checks.NONE, TurnCredit.Checks.NONE,
                    TurnCredit.Checks.NONE);
        }

        boolean noEnvCheck = isNull(criteria.get("actions")) && isNull(criteria.get("env_assertions"));
        double db = 1;
        double assertions = 1;
        int assertionsMet = 0;
        int assertionsTotal = 0;
        if (!noEnvCheck) {
            Tau2Environment predicted = fresh.get();
            predicted.setState(task.get("initial_state"), List.of());
            predicted.replay(trajectory);
            db = matchesGold.test(task, predicted) ? 1 : 0;
            for (JsonNode a : criteria.path("env_assertions")) {
                assertionsTotal++;
                if (holds(predicted, a)) assertionsMet++;
                else assertions = 0;
            }
        }
        TurnCredit.Checks actionChecks = actions(criteria.path("actions"), trajectory);
        TurnCredit.Checks communicateChecks = communicated(criteria.path("communicate_info"), trajectory);
        c.put("db", db);
        c.put("env_assertion", assertions);
        c.put("action", actionChecks.met() == actionChecks.total() ? 1.0 : 0.0);
        c.put("communicate", communicateChecks.met() == communicateChecks.total() ? 1.0 : 0.0);
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
        return new Result(c, skipped, result, actionChecks, communicateChecks, new TurnCredit.Checks(assertionsMet, assertionsTotal),
                noEnvCheck ? TurnCredit.Checks.NONE : TurnCredit.Checks.of(db == 1));
    }

    /** The environment as the task's gold actions leave it: its initial state, then each action (their failures ignored). */
    static Tau2Environment goldState(JsonNode task, Supplier<Tau2Environment> fresh) {
        Tau2Environment gold = fresh.get();
        gold.setState(task.get("initial_state"), history(task));
        for (JsonNode action : task.path("evaluation_criteria").path("actions")) {
            try {
                gold.makeToolCall(action.path("name").asText(), Tau2Message.Requestor.parse(action.path("requestor").asText("assistant")),
                        action.path("arguments"));
            } catch (RuntimeException e) {
                // τ² logs a failing gold action and goes on: some are meant to fail (an order that cannot be exchanged).
            }
        }
        return gold;
    }

    /**
     * An assertion on the replayed environment. One that raises (it names a task the agent never created)
     * does not hold: τ²'s evaluator would stop on it and the run be retried as an infrastructure error,
     * which here would lose the episode's grade.
     */
    private static boolean holds(Tau2Environment env, JsonNode assertion) {
        try {
            return env.holds(assertion);
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static boolean isNull(JsonNode n) {
        return n == null || n.isNull();
    }

    /** The task's own message history, which the gold environment replays before its actions. */
    static List<Tau2Message> history(JsonNode task) {
        return Tau2Messages.parse(task.path("initial_state").path("message_history"));
    }

    /** How many gold actions some call of the conversation (agent's or user's) matches; τ² needs all of them. */
    static TurnCredit.Checks actions(JsonNode gold, List<Tau2Message> trajectory) {
        if (!gold.isArray() || gold.isEmpty()) return TurnCredit.Checks.NONE;
        int met = 0;
        for (JsonNode action : gold) {
            boolean found = false;
            for (Tau2Message m : trajectory) {
                for (Tau2Message.Call call : m.calls()) found |= matches(action, call);
                if (found) break;
            }
            if (found) met++;
        }
        return new TurnCredit.Checks(met, gold.size());
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
        for (String k : mine.keySet()) if (!PythonEquality.equal(mine.get(k), theirs.get(k))) return false;
        return true;
    }

    /** The required strings found in some agent message, lower-cased, the message without its commas (TurnCredit's rule). */
    static TurnCredit.Checks communicated(JsonNode info, List<Tau2Message> trajectory) {
        if (!info.isArray() || info.isEmpty()) return TurnCredit.Checks.NONE;
        List<String> required = new java.util.ArrayList<>();
        info.forEach(i -> required.add(i.asText()));
        List<String> said = new java.util.ArrayList<>();
        for (Tau2Message m : trajectory) {
            if (m.role() == Tau2Message.Role.ASSISTANT && m.content() != null && !m.content().isBlank()) said.add(m.content());
        }
        return TurnCredit.communicated(required, said);
    }
}
