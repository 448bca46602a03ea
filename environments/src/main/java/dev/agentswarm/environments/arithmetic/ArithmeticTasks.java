package dev.agentswarm.environments.arithmetic;

import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.tool.ArithmeticExpression;
import dev.agentswarm.environments.GeneratedTasks;
import dev.agentswarm.environments.Split;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Multi-step expressions a small policy cannot do in its head: 3 to {@code maxOps} operations over
 * two- and three-digit numbers, with parentheses. A task's split is decided by a hash of its
 * expression ({@link Split#byHash}).
 */
final class ArithmeticTasks {

    static final String ALL_OPERATORS = "+-*/";

    private ArithmeticTasks() {}

    private record Draft(String expression, int ops, String answer) {}

    static List<Task> generate(String suite, Split split, int limit, long seed, int minOps, int maxOps, String operators) {
        return GeneratedTasks.generate(suite, split, limit, seed, rnd -> {
            int ops = minOps + rnd.nextInt(maxOps - minOps + 1);
            String expr = expression(rnd, ops, operators);
            try {
                return new Draft(expr, ops, ArithmeticExpression.format(ArithmeticExpression.evaluate(expr)));
            } catch (ArithmeticException | IllegalArgumentException e) {
                return null; // a division by zero drawn by chance
            }
        }, Draft::expression, (id, meta, d) -> {
            meta.put("expression", d.expression());
            meta.put("ops", Integer.toString(d.ops()));
            return new Task(id, "Compute " + d.expression() + " exactly. Use the calculator, then give only the number as the"
                    + " final answer.", d.answer(), meta);
        });
    }

    /** An expression of {@code ops} operations: operands joined left to right, some pairs parenthesised. */
    private static String expression(SplittableRandom rnd, int ops, String operators) {
        // Parenthesised pairs add or subtract where those are allowed.
        String inner = operators.replaceAll("[*/]", "");
        if (inner.isEmpty()) inner = operators;
        String expr = operand(rnd);
        for (int i = 0; i < ops; i++) {
            char op = operators.charAt(rnd.nextInt(operators.length()));
            String right = operand(rnd);
            if (rnd.nextInt(3) == 0 && i + 1 < ops) {
                right = "(" + right + " " + inner.charAt(rnd.nextInt(inner.length())) + " " + operand(rnd) + ")";
                i++;
            }
            expr = (rnd.nextInt(3) == 0 ? "(" + expr + ")" : expr) + " " + op + " " + right;
        }
        return expr;
    }

    private static String operand(SplittableRandom rnd) {
        return Integer.toString(rnd.nextInt(3) == 0 ? rnd.nextInt(100, 1000) : rnd.nextInt(2, 100));
    }
}
