package dev.agentswarm.orchestrator.swarm;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * When a round of sub-agents is over for the orchestrator: when all are done ({@code all}), when
 * {@code k} have answered ({@code first_k}), or when more than half of the round's sub-tasks gave the
 * same answer ({@code quorum}, self-consistency voting). Sub-agents still running then are cancelled
 * and those not started are skipped.
 */
public record Join(Kind kind, int k) {

    public enum Kind { ALL, FIRST_K, QUORUM }

    public static final Join ALL = new Join(Kind.ALL, 0);

    public Join {
        if (kind == Kind.FIRST_K && k < 1) throw new IllegalArgumentException("first_k needs k >= 1, got " + k);
    }

    public String describe() {
        return switch (kind) {
            case ALL -> "all";
            case FIRST_K -> "first_k(" + k + ")";
            case QUORUM -> "quorum";
        };
    }

    /** Reads {@code "join"} and {@code "k"} of a spawn call, adding what is wrong to {@code problems}; absent means all. */
    static Join read(JsonNode arguments, int subTasks, List<String> problems) {
        JsonNode j = arguments.get("join");
        if (j == null || j.isNull()) return ALL;
        String name = j.isTextual() ? j.asText() : null;
        if ("all".equals(name)) return ALL;
        if ("quorum".equals(name)) return new Join(Kind.QUORUM, 0);
        if ("first_k".equals(name)) {
            JsonNode k = arguments.get("k");
            if (k == null || !k.canConvertToInt() || !k.isIntegralNumber() || k.asInt() < 1) {
                problems.add("join first_k needs \"k\", a whole number of answers to wait for (1 to " + subTasks + ")");
                return ALL;
            }
            if (k.asInt() > subTasks) {
                problems.add("join first_k waits for " + k.asInt() + " answers but the plan has " + subTasks + " sub-tasks");
                return ALL;
            }
            return new Join(Kind.FIRST_K, k.asInt());
        }
        problems.add("\"join\" is " + j + "; use \"all\", \"first_k\" (with \"k\") or \"quorum\"");
        return ALL;
    }
}
