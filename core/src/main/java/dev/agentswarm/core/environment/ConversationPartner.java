package dev.agentswarm.core.environment;

import java.util.concurrent.CompletionStage;

/**
 * The other side of a conversation an episode holds: a simulated user (τ²-bench's customer, scripted or
 * played by a model) who opens after the agent's greeting, answers each of the agent's messages and
 * ends the conversation when done. Its own tool calls, if it has tools, stay on its side.
 */
public interface ConversationPartner {

    /** What the partner says; {@code ends} when it closes the conversation (its last words are in {@code text}). */
    record Reply(String text, boolean ends) {}

    /** The agent's first words, before the partner opens. */
    String greeting();

    /** The partner's answer to the agent's message (the first call answers the greeting). */
    CompletionStage<Reply> reply(String agentMessage);
}
