package dev.agentswarm.core.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.CborSerializable;

/**
 * One call the model asked for. {@code arguments} is always a JSON object here; formats whose
 * wire form is a JSON string (OpenAI {@code tool_calls}) decode it while parsing.
 */
public record ToolCall(String id, String name, JsonNode arguments) implements CborSerializable {}
