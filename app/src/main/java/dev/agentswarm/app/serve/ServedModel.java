package dev.agentswarm.app.serve;

import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.SamplingParams;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.policy.embedded.Generation;
import dev.agentswarm.policy.embedded.TopLogprobs;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A model the chat-completions route serves: how a conversation becomes prompt ids (the model's own
 * chat template, tools included), what a token id stands for, and generation. The node's
 * {@link PolicyServerModel} is the one {@code swarm serve} uses; tests may serve another through the
 * same route.
 */
public interface ServedModel {

    /** Hears one generation: its tokens as they come when streamed, then exactly one of {@code done} or {@code failed}. */
    interface Listener {
        /**
         * Tokens produced since the previous call (streamed generations only; never the last step's, which
         * come with {@code done}), with each position's most likely tokens when the request asked for them (else null).
         */
        void tokens(int[] ids, float[] logprobs, TopLogprobs top);

        void done(Generation generation);

        /** 429 when the server's queue is full, 400 when the prompt does not fit, 500/504 when the model failed or took too long. */
        void failed(ApiError error);
    }

    /** The name clients put in {@code model}. */
    String id();

    /** The prompt ids for the next assistant turn; {@link IllegalArgumentException} when the conversation cannot be rendered. */
    int[] prompt(List<Message> messages, List<ToolSpec> tools);

    /** The UTF-8 bytes token {@code id} stands for. */
    byte[] tokenBytes(int id);

    /** Starts one continuation of {@code prompt}; run the returned action to cancel it (the client went away). */
    Runnable generate(int[] prompt, SamplingParams sampling, boolean stream, Listener listener);

    /**
     * The same, keeping each position's {@code topLogprobs} most likely tokens ({@link Generation#top});
     * a model that cannot leaves them out.
     */
    default Runnable generate(int[] prompt, SamplingParams sampling, boolean stream, int topLogprobs, Listener listener) {
        return generate(prompt, sampling, stream, listener);
    }

    /** One continuation, not streamed. */
    default CompletionStage<Generation> generate(int[] prompt, SamplingParams sampling) {
        CompletableFuture<Generation> result = new CompletableFuture<>();
        generate(prompt, sampling, false, new Listener() {
            @Override
            public void tokens(int[] ids, float[] logprobs, TopLogprobs top) {}

            @Override
            public void done(Generation generation) {
                result.complete(generation);
            }

            @Override
            public void failed(ApiError error) {
                result.completeExceptionally(error);
            }
        });
        return result;
    }
}
