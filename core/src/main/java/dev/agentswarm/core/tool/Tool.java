package dev.agentswarm.core.tool;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.protocol.ToolSpec;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * A tool an episode may call. Arguments arrive already validated against
 * {@link ToolSpec#parameters()}; the result is the text the model reads. Implementations must not
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
