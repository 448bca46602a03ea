package dev.agentswarm.core.reward;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.protocol.ToolCall;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Seed 003's turn-level partial credit, after τ²-bench's action checks: the share of the expected
 * actions (tool name and the arguments the task cares about) that the episode's calls performed,
 * each call matching at most one expected action. A long task whose agent did 4 of 5 right steps
 * earns 0.8 instead of τ²-bench's all-or-nothing 0, which gives GRPO a gradient on hard tasks.
 */
public final class TurnCredit {

    private TurnCredit() {}

    /**
     * @param expected the actions the task requires; only the argument keys they name are compared
     *     (JSON equality per key), so incidental arguments do not matter
     * @return matched / expected, 1 when nothing is expected
     */
    public static double actions(List<ToolCall> expected, List<ToolCall> performed) {
        if (expected.isEmpty()) return 1.0;
        List<ToolCall> left = new ArrayList<>(performed);
        int matched = 0;
        for (ToolCall want : expected) {
            for (Iterator<ToolCall> it = left.iterator(); it.hasNext(); ) {
                if (matches(want, it.next())) {
                    it.remove();
                    matched++;
                    break;
                }
            }
        }
        return (double) matched / expected.size();
    }

    private static boolean matches(ToolCall want, ToolCall got) {
        if (!want.name().equals(got.name())) return false;
        JsonNode w = want.arguments();
        if (w == null || !w.isObject()) return true;
        JsonNode g = got.arguments();
        for (Iterator<Map.Entry<String, JsonNode>> it = w.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (g == null || !e.getValue().equals(g.get(e.getKey()))) return false;
        }
        return true;
    }
}
