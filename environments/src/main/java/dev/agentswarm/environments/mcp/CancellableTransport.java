package dev.agentswarm.environments.mcp;

import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * A transport that remembers the JSON-RPC id of each {@code tools/call} it sends, so that a call the
 * episode gives up (its time limit, the episode's end) can be cancelled at the server with
 * {@code notifications/cancelled}: the SDK's client keeps request ids to itself. Calls are known by a
 * key this side puts in the request's {@code _meta} ({@value #CALL_KEY}).
 */
final class CancellableTransport implements McpClientTransport {

    /** The {@code _meta} field of a tools/call request that names it on this side. */
    static final String CALL_KEY = "dev.agentswarm/call";

    private final McpClientTransport delegate;
    private final Map<String, Object> requestIds = new ConcurrentHashMap<>();

    CancellableTransport(McpClientTransport delegate) {
        this.delegate = delegate;
    }

    McpClientTransport delegate() {
        return delegate;
    }

    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
        if (message instanceof McpSchema.JSONRPCRequest r && McpSchema.METHOD_TOOLS_CALL.equals(r.method())
                && r.params() instanceof McpSchema.CallToolRequest call && call.meta() != null
                && call.meta().get(CALL_KEY) instanceof String key) {
            requestIds.put(key, r.id());
        }
        return delegate.sendMessage(message);
    }

    /** The call is over: forget its id. */
    void done(String key) {
        requestIds.remove(key);
    }

    /** Tells the server to stop the call {@code key}, if it was sent; its answer, if any, is ignored. */
    void cancel(String key, String reason) {
        Object id = requestIds.remove(key);
        if (id == null) return;
        delegate.sendMessage(new McpSchema.JSONRPCNotification(McpSchema.JSONRPC_VERSION, "notifications/cancelled",
                Map.of("requestId", id, "reason", reason))).subscribe(x -> {}, e -> {});
    }

    @Override
    public Mono<Void> connect(Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
        return delegate.connect(handler);
    }

    @Override
    public void setExceptionHandler(Consumer<Throwable> handler) {
        delegate.setExceptionHandler(handler);
    }

    @Override
    public Mono<Void> closeGracefully() {
        return delegate.closeGracefully();
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
        return delegate.unmarshalFrom(data, typeRef);
    }

    @Override
    public List<String> protocolVersions() {
        return delegate.protocolVersions();
    }
}
