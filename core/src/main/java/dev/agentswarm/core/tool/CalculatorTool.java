package dev.agentswarm.core.tool;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.protocol.ToolSpec;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The {@code calculator} tool: {@code {"expression": "(2 + 3) * 4"}} gives {@code 20}. Exact
 * decimal arithmetic by {@link ArithmeticExpression}; cheap and CPU-only, so it answers on the
 * caller's thread. A bad expression fails the stage with a message saying what to fix, which the
 * executor hands back to the model as an error observation.
 */
public final class CalculatorTool implements Tool {

    public static final String NAME = "calculator";

    private static final ToolSpec SPEC = ToolSpecs.oneString(NAME,
            "Evaluates an arithmetic expression exactly and returns the result as a decimal number. "
                    + "Supports + - * / ^ (also × ÷ −), unary minus, parentheses and decimal numbers.",
            "expression", "The arithmetic expression to evaluate, e.g. \"(2 + 3) * 4\" or \"2^10 / 3\".");

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    /** Pure arithmetic: running it again changes nothing. */
    @Override
    public boolean idempotent(JsonNode arguments) {
        return true;
    }

    @Override
    public CompletionStage<String> invoke(JsonNode arguments, ToolContext context) {
        try {
            return CompletableFuture.completedFuture(ArithmeticExpression.format(ArithmeticExpression.evaluate(ToolSpecs.string(arguments, "expression"))));
        } catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }
}
