package dev.agentswarm.core.protocol;

import dev.agentswarm.core.CborSerializable;
import java.util.List;

/**
 * One call to a policy. {@code episodeId} and {@code turn} identify the call, so recordings
 * and replays can key on it whatever the interleaving. {@code tools} is only filled for formats
 * whose tools travel natively in the API request; {@code toolChoice} is "auto", "none",
 * "required" or a tool name.
 */
public record CompletionRequest(String episodeId, int turn, List<Message> messages, List<ToolSpec> tools,
                                String toolChoice, SamplingParams sampling) implements CborSerializable {

    public CompletionRequest {
        messages = List.copyOf(messages);
        tools = tools == null ? List.of() : List.copyOf(tools);
        toolChoice = toolChoice == null ? "auto" : toolChoice;
        sampling = sampling == null ? SamplingParams.DEFAULT : sampling;
    }
}
