package dev.agentswarm.app.serve;

import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.SamplingParams;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.policy.embedded.Generation;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * A model the chat-completions route serves: how a conversation becomes prompt ids (the model's own
 * chat template, tools included), what a token id stands for, and generation. The node's
 * {@link PolicyServerModel} is the one {@code swarm serve} uses; tests may serve another through the
 * same route.
 */
public interface ServedModel {

    /** The name clients put in {@code model}. */
    String id();

    /** The prompt ids for the next assistant turn; {@link IllegalArgumentException} when the conversation cannot be rendered. */
    int[] prompt(List<Message> messages, List<ToolSpec> tools);

    /** The UTF-8 bytes token {@code id} stands for. */
    byte[] tokenBytes(int id);

    /**
     * Generates one continuation of {@code prompt}. Fails with {@link ApiError}: 429 when the server's
     * queue is full, 400 when the prompt does not fit, 500 when the model failed.
     */
    CompletionStage<Generation> generate(int[] prompt, SamplingParams sampling);
}
