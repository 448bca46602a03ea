package dev.agentswarm.core.format;

import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.ToolSpec;
import java.util.List;

/**
 * How tools are offered to a model and how its answers are read: one class per wire format
 * (Hermes/Qwen3 {@code <tool_call>}, ReAct, OpenAI {@code tool_calls}, the JSON plan). A format
 * is stateless and thread-safe.
 */
public interface ToolCallFormat {

    /** The name used in configuration ({@code format = hermes}). */
    String name();

    /** Text appended to the system prompt that lists the tools and how to call them; empty for native formats. */
    String toolsPrompt(List<ToolSpec> tools);

    /** True when tools travel in the API request ({@code tools}) and come back as native tool calls. */
    default boolean nativeTools() {
        return false;
    }

    /** Stop sequences the format needs (ReAct stops before a hallucinated {@code Observation:}). */
    default List<String> stopSequences() {
        return List.of();
    }

    /**
     * Reads a completion into thought, tool calls, final answer and errors. Never throws, whatever
     * the input. {@code tools} are the tools offered, for formats that need their schemas.
     */
    ParsedCompletion parse(Completion completion, List<ToolSpec> tools);

    /** The assistant message appended to the conversation for this completion. */
    Message assistantMessage(Completion completion, ParsedCompletion parsed);

    /** The messages that feed the results of one turn's tool calls back to the model, in call order. */
    List<Message> observations(List<ToolResult> results);

    /** The message that tells the model why its output could not be used, so it can correct itself. */
    Message formatFeedback(List<String> errors);

    /**
     * The completion a model that follows this format writes for a thought and either tool calls or a
     * final answer (exactly one of the two): what oracles render demonstrations with. {@link #parse}
     * gives the calls or the answer back. Throws {@link IllegalArgumentException} for what the format
     * cannot express (several calls in one ReAct turn, a call in a plan).
     */
    Completion write(String thought, List<ToolCall> calls, String answer);
}
