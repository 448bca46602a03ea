package dev.agentswarm.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.core.tool.ToolContext;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A tool whose behaviour a test programs: results computed from the arguments, a latency that
 * holds no thread, failures, or calls that never complete. It remembers every call it got.
 */
public final class FakeTool implements Tool {

    /** One call as the tool saw it. */
    public record Call(JsonNode arguments, ToolContext context) {}

    private final ToolSpec spec;
    private final Function<JsonNode, String> behaviour;
    private final long latencyMillis;
    private final boolean hangs;
    private final boolean idempotent;
    private final List<Call> calls = new CopyOnWriteArrayList<>();

    private FakeTool(ToolSpec spec, Function<JsonNode, String> behaviour, long latencyMillis, boolean hangs, boolean idempotent) {
        this.spec = spec;
        this.behaviour = behaviour;
        this.latencyMillis = latencyMillis;
        this.hangs = hangs;
        this.idempotent = idempotent;
    }

    /** A tool accepting any arguments object and answering with {@code behaviour(arguments)}. */
    public static FakeTool named(String name, Function<JsonNode, String> behaviour) {
        JsonNode schema = Json.object().put("type", "object");
        return new FakeTool(new ToolSpec(name, "fake tool " + name, schema), behaviour, 0, false, false);
    }

    /** A tool that always answers {@code result}. */
    public static FakeTool returning(String name, String result) {
        return named(name, args -> result);
    }

    /** A tool that always fails with {@code message}. */
    public static FakeTool failing(String name, String message) {
        return named(name, args -> {
            throw new IllegalStateException(message);
        });
    }

    /** A tool whose calls never complete: the episode's tool timeout must end them. */
    public static FakeTool hanging(String name) {
        return new FakeTool(named(name, a -> "").spec, a -> "", 0, true, false);
    }

    public FakeTool withSchema(JsonNode parameters) {
        return new FakeTool(new ToolSpec(spec.name(), spec.description(), parameters), behaviour, latencyMillis, hangs, idempotent);
    }

    public FakeTool withLatency(Duration latency) {
        return new FakeTool(spec, behaviour, latency.toMillis(), hangs, idempotent);
    }

    /**
     * The same tool declaring its calls idempotent (they may run again after a crash) or not; a fake
     * tool is not, by default, as any tool that does not say ({@link Tool#idempotent}).
     */
    public FakeTool withIdempotent(boolean repeatable) {
        return new FakeTool(spec, behaviour, latencyMillis, hangs, repeatable);
    }

    @Override
    public boolean idempotent(JsonNode arguments) {
        return idempotent;
    }

    @Override
    public ToolSpec spec() {
        return spec;
    }

    @Override
    public CompletionStage<String> invoke(JsonNode arguments, ToolContext context) {
        calls.add(new Call(arguments, context));
        if (hangs) return new CompletableFuture<>();
        if (latencyMillis <= 0) {
            try {
                return CompletableFuture.completedFuture(behaviour.apply(arguments));
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        return CompletableFuture.supplyAsync(() -> behaviour.apply(arguments),
                CompletableFuture.delayedExecutor(latencyMillis, TimeUnit.MILLISECONDS));
    }

    public List<Call> calls() {
        return List.copyOf(calls);
    }

    public int callCount() {
        return calls.size();
    }
}
