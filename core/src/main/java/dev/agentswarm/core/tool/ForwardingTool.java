package dev.agentswarm.core.tool;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.protocol.ToolSpec;
import java.util.concurrent.CompletionStage;

/**
 * A tool that does what {@code delegate} does: the base of wrappers that change one thing (record its
 * calls, override what it declares), so that everything else a tool says — its spec, its idempotency,
 * what it frees at an episode's end — is passed on and not forgotten.
 */
public abstract class ForwardingTool implements Tool {

    protected final Tool delegate;

    protected ForwardingTool(Tool delegate) {
        this.delegate = delegate;
    }

    @Override
    public ToolSpec spec() {
        return delegate.spec();
    }

    @Override
    public CompletionStage<String> invoke(JsonNode arguments, ToolContext context) {
        return delegate.invoke(arguments, context);
    }

    @Override
    public boolean idempotent(JsonNode arguments) {
        return delegate.idempotent(arguments);
    }

    @Override
    public boolean checksOwnArguments() {
        return delegate.checksOwnArguments();
    }

    @Override
    public void release(String episodeId) {
        delegate.release(episodeId);
    }
}
