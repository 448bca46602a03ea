package dev.agentswarm.core.format;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.protocol.ToolCall;
import java.util.List;

/**
 * A completion read by a {@link ToolCallFormat}: the model's reasoning ({@code thought}), the tool
 * calls it asked for, its final answer if it gave one, and every problem found. {@code plan} holds
 * the parsed JSON plan of the plan format.
 *
 * <p>Parsing never throws: what could not be understood is an entry in {@code errors}, written so
 * that the model can fix it when it reads it back.
 */
public record ParsedCompletion(String thought, List<ToolCall> toolCalls, String finalAnswer, List<String> errors,
                               JsonNode plan) {

    public ParsedCompletion {
        thought = thought == null ? "" : thought;
        toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
        errors = errors == null ? List.of() : List.copyOf(errors);
    }

    public boolean hasFinalAnswer() {
        return finalAnswer != null;
    }

    public boolean hasErrors() {
        return !errors.isEmpty();
    }
}
