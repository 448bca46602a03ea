package dev.agentswarm.core.protocol;

/** Why the policy stopped generating, in the chat-completions vocabulary. */
public enum FinishReason {
    STOP, LENGTH, TOOL_CALLS, CONTENT_FILTER, OTHER;

    public static FinishReason fromWire(String s) {
        if (s == null) return OTHER;
        return switch (s) {
            case "stop", "eos", "stop_sequence" -> STOP;
            case "length", "max_tokens" -> LENGTH;
            case "tool_calls", "function_call" -> TOOL_CALLS;
            case "content_filter" -> CONTENT_FILTER;
            default -> OTHER;
        };
    }
}
