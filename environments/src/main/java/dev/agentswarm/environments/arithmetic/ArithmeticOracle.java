package dev.agentswarm.environments.arithmetic;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.tool.CalculatorTool;
import dev.agentswarm.environments.Noise;
import dev.agentswarm.environments.Oracle;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * Calls the calculator on the whole expression and answers with the number it returned. With noise
 * it first wastes a call on a sub-expression, or first drops the parentheses (a wrong call it then
 * corrects), and pads its thoughts.
 */
final class ArithmeticOracle implements Oracle {


    @Override
    public Step next(Task task, List<Message> conversation, Noise noise) {
        String expr = task.metadata().get("expression");
        if (expr == null) throw new IllegalArgumentException("arithmetic task " + task.id() + " has no expression");
        String filler = noise.applies(noise.filler(), task.id(), "filler") ? Noise.FILLER : "";
        List<Step> plan = new ArrayList<>();
        if (noise.applies(noise.wastedCall(), task.id(), "wasted")) {
            plan.add(Step.call(filler + "I will start with a part of it.", calc("w", firstPart(expr))));
        }
        if (noise.applies(noise.wrongFirstCall(), task.id(), "wrong") && expr.contains("(")) {
            plan.add(Step.call(filler + "Let me compute it.", calc("x", expr.replace("(", "").replace(")", ""))));
            plan.add(Step.call(filler + "I dropped the parentheses; computing the expression as written.", calc("c", expr)));
        } else {
            plan.add(Step.call(filler + "I will use the calculator on the whole expression.", calc("c", expr)));
        }
        int moves = Oracle.moves(conversation);
        if (moves < plan.size()) return plan.get(moves);
        BigDecimal result = NumericAnswer.single(Oracle.lastObservation(conversation));
        if (result == null) {
            // The calculator answered with an error: say so rather than guess.
            return Step.answer(filler + "The calculator did not return a number.", "unknown");
        }
        return Step.answer(filler + "The calculator returned the result.", result.toPlainString());
    }

    private static ToolCall calc(String id, String expression) {
        ObjectNode args = Json.object();
        args.put("expression", expression);
        return new ToolCall(id, CalculatorTool.NAME, args);
    }

    /** The first parenthesised group, or the expression up to its second operator. */
    private static String firstPart(String expr) {
        int open = expr.indexOf('(');
        if (open >= 0) {
            int depth = 0;
            for (int i = open; i < expr.length(); i++) {
                if (expr.charAt(i) == '(') depth++;
                if (expr.charAt(i) == ')' && --depth == 0) return expr.substring(open + 1, i);
            }
        }
        String[] parts = expr.split(" ");
        return parts.length >= 3 ? parts[0] + " " + parts[1] + " " + parts[2] : expr;
    }
}
