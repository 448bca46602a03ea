package dev.agentswarm.core.context;

import dev.agentswarm.core.protocol.Message;

/** Counts tokens of text and messages, for context and token budgets. */
public interface TokenCounter {

    int count(String text);

    /** Tokens of a whole message: its content, its tool calls and the chat template's overhead. */
    default int count(Message m) {
        int n = 4 + count(m.content());
        for (var call : m.toolCalls()) {
            n += 4 + count(call.name()) + count(call.arguments() == null ? "" : call.arguments().toString());
        }
        return n;
    }
}
