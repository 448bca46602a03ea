package dev.agentswarm.core.policy;

import dev.agentswarm.core.context.ApproxTokenCounter;
import dev.agentswarm.core.context.TokenCounter;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.CompletionRequest;
import java.util.concurrent.CompletionStage;

/**
 * Anything that turns a conversation into a completion: an OpenAI-compatible server, the
 * embedded model, a scripted policy in tests. Calls are asynchronous and must not block the
 * caller's thread; a failure completes the stage exceptionally, preferably with a
 * {@link PolicyException} that says what went wrong.
 */
public interface Policy {

    CompletionStage<Completion> complete(CompletionRequest request);

    /** How this policy counts tokens, for context budgets. Real tokenizers override the estimate. */
    default TokenCounter tokenCounter() {
        return ApproxTokenCounter.INSTANCE;
    }

    /** A short human-readable description ("openai http://…/v1 model=qwen3-8b", "scripted"). */
    default String describe() {
        return getClass().getSimpleName();
    }
}
