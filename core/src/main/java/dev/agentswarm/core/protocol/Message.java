package dev.agentswarm.core.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.agentswarm.core.CborSerializable;
import java.util.List;

/**
 * One chat message as a policy sees it. Assistant messages may carry native tool calls; tool
 * messages name the call they answer ({@code toolCallId}) and the tool ({@code name}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Message(Role role, String content, List<ToolCall> toolCalls, String toolCallId, String name)
        implements CborSerializable {

    public Message {
        toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
        content = content == null ? "" : content;
    }

    public static Message system(String content) {
        return new Message(Role.SYSTEM, content, null, null, null);
    }

    public static Message user(String content) {
        return new Message(Role.USER, content, null, null, null);
    }

    public static Message assistant(String content) {
        return new Message(Role.ASSISTANT, content, null, null, null);
    }

    public static Message assistant(String content, List<ToolCall> calls) {
        return new Message(Role.ASSISTANT, content, calls, null, null);
    }

    public static Message tool(String toolCallId, String name, String content) {
        return new Message(Role.TOOL, content, null, toolCallId, name);
    }

    public Message withContent(String newContent) {
        return new Message(role, newContent, toolCalls, toolCallId, name);
    }
}
