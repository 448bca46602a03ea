package dev.agentswarm.core.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.CborSerializable;

/**
 * What the model is told about a tool: its name, what it does and the JSON Schema of its
 * arguments (an object schema, as in the chat-completions {@code tools} field).
 */
public record ToolSpec(String name, String description, JsonNode parameters) implements CborSerializable {}
