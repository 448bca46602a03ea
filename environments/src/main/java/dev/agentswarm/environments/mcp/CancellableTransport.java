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
 * key this side puts in the request's {@code _meta} ({@value #CALL_KEY}). It also notes which listed
 * tools can only run as MCP tasks ({@code execution.taskSupport: "required"}, a field the SDK's
 * {@code Tool} record drops): a plain {@code tools/call} of one is refused, so they are not offered.
 */
final class CancellableTransport implements McpClientTransport {

    /** The {@code _meta} field of a tools/call request that names it on this side. */
    static final String CALL_KEY = "dev.agentswarm/call";

    private final McpClientTransport delegate;
    private final Map<String, Object> requestIds = new ConcurrentHashMap<>();
    private final java.util.Set<String> taskOnly = ConcurrentHashMap.newKeySet();

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
        return delegate.connect(inbound -> handler.apply(inbound.doOnNext(this::observe)));
    }

    /** The tools listed so far that only run as MCP tasks. */
    java.util.Set<String> taskOnly() {
        return java.util.Set.copyOf(taskOnly);
    }

    private void observe(McpSchema.JSONRPCMessage message) {
        if (!(message instanceof McpSchema.JSONRPCResponse r) || !(r.result() instanceof Map<?, ?> result)
                || !(result.get("tools") instanceof List<?> tools)) {
            return;
        }
        for (Object t : tools) {
            if (!(t instanceof Map<?, ?> tool) || !(tool.get("name") instanceof String name)) continue;
            boolean required = tool.get("execution") instanceof Map<?, ?> e && "required".equals(e.get("taskSupport"));
            if (required) taskOnly.add(name);
            else taskOnly.remove(name);
        }
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
