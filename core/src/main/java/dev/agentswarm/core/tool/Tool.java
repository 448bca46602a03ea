package dev.agentswarm.core.tool;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.protocol.ToolSpec;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * A tool an episode may call. Arguments arrive already validated against
 * {@link ToolSpec#parameters()} (unless it {@linkplain #checksOwnArguments checks them itself}); the result is the text the model reads. Implementations must not
 * block the calling thread: blocking work goes to its own executor and comes back as a stage.
 * Throwing or failing the stage is fine: the episode turns it into an error observation.
 */
public interface Tool {

    ToolSpec spec();

    CompletionStage<String> invoke(JsonNode arguments, ToolContext context);

    default String name() {
        return spec().name();
    }

    /**
     * The episode ended (finished, failed or stopped): free what this tool keeps for it, such as a
     * sandbox session. Called once per episode for every tool it was offered, whether it called it
     * or not; must be cheap and must not throw.
     */
    default void release(String episodeId) {}

    /**
     * Whether this call may run a second time, with the same arguments, when a crash leaves it unknown
     * whether it ran: true when running it again does no harm (it only reads, computes, or sets what it
     * sets to the same value). A durable swarm resumes an episode after its journaled turns; a call that
     * was in flight at the crash runs again only when this says so. Otherwise the episode reads an
     * observation saying the call was interrupted and its effect is unknown ({@link
     * dev.agentswarm.core.protocol.ToolStatus#INTERRUPTED}), and inside a swarm the call starts only once
     * the swarm's journal holds the turn that asked for it.
     *
     * <p>The default is false: a tool that does not say is taken to have effects (a message sent, a row
     * written, a payment made) that must not happen twice unseen; asking the model to check costs a turn,
     * repeating an effect cannot be undone. A node's configuration may override it per tool name
     * ({@code agentswarm.tools.NAME.idempotent}). Must be cheap and must not block.
     */
    default boolean idempotent(JsonNode arguments) {
        return false;
    }

    /**
     * Whether this tool answers arguments that do not fit its schema itself, so the executor passes them on
     * unchecked (a JSON object still). For tools that reproduce a benchmark whose own tools see every call:
     * τ²'s answer a missing or unexpected argument with Python's error, which its evaluator counts as a
     * failed call. The default is false: the executor refuses such calls with the schema's violations.
     */
    default boolean checksOwnArguments() {
        return false;
    }

    /** A tool whose work is cheap and CPU-only, computed on the caller's thread. */
    static Tool of(ToolSpec spec, Function<JsonNode, String> body) {
        return new Tool() {
            @Override
            public ToolSpec spec() {
                return spec;
            }

            @Override
            public CompletionStage<String> invoke(JsonNode arguments, ToolContext context) {
                try {
                    return CompletableFuture.completedFuture(body.apply(arguments));
                } catch (RuntimeException e) {
                    return CompletableFuture.failedFuture(e);
                }
            }
        };
    }
}
