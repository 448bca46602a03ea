package dev.agentswarm.core.tool;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolSpec;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The {@code finish} tool: {@code {"answer": "..."}}. It does nothing but hand the answer back;
 * its meaning lives in the episode loop, which treats a call to it as the episode's final answer
 * (stop reason {@code FINAL_ANSWER}) instead of feeding an observation back to the model. It
 * exists for formats whose only way to speak is a tool call (a native {@code tool_choice =
 * required} run, the JSON plan).
 */
public final class FinishTool implements Tool {

    public static final String NAME = "finish";

    private static final ToolSpec SPEC = ToolSpecs.oneString(NAME,
            "Gives the final answer to the task and ends the episode. Call it once, when you know the answer.",
            "answer", "The final answer, complete and self-contained.");

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    /** It only hands the answer back (the episode ends on it without running it). */
    @Override
    public boolean idempotent(JsonNode arguments) {
        return true;
    }

    @Override
    public CompletionStage<String> invoke(JsonNode arguments, ToolContext context) {
        try {
            return CompletableFuture.completedFuture(ToolSpecs.string(arguments, "answer"));
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The answer of a {@code finish} call, or null when the call is not one or carries no text answer. */
    public static String answerOf(ToolCall call) {
        if (call == null || !NAME.equals(call.name()) || call.arguments() == null) return null;
        JsonNode a = call.arguments().get("answer");
        return a != null && a.isTextual() ? a.textValue() : null;
    }
}
