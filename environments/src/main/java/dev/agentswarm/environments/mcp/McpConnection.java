package dev.agentswarm.environments.mcp;

import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.ToolStatus;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * One connection to an MCP server (a process on stdio, or a session at a url) through the SDK's async
 * client, and the calls it has in flight: it sends them and reads what they come back with, and
 * after a timeout pings the server to tell a slow tool from a hung server. It does not replace
 * itself: it tells its {@link Owner} ({@link McpServer}) what it hears, and that one decides.
 */
final class McpConnection {

    // The server's logger: its server's log lines, whichever class writes them.
    private static final Logger LOG = LoggerFactory.getLogger(McpServer.class);
    static final McpJsonMapper MAPPER = new JacksonMcpJsonMapper(Json.MAPPER);
    private static final String VERSION = version();

    /** What a connection tells the server it belongs to. */
    interface Owner {
        /** It can no longer serve, because {@code why}; {@code detail} (its stderr) goes after the message. */
        void lost(McpConnection c, String why, String detail);

        /** It listed its tools (null: none), or listed them again after {@code notifications/tools/list_changed}. */
        void listed(McpConnection c, List<McpSchema.Tool> tools);

        /** The server answered a call, with a result or an error. */
        void answered();
    }

    private final McpSettings.Server settings;
    private final String label;
    private final Owner owner;
    final int generation;
    final McpAsyncClient client;
    final CancellableTransport transport;
    final StdioTransport stdio;
    final Set<McpCall> inflight = ConcurrentHashMap.newKeySet();
    final AtomicBoolean pinging = new AtomicBoolean();
    final CompletableFuture<McpConnection> up = new CompletableFuture<>();
    volatile String lost;
    volatile List<McpSchema.Tool> tools = List.of();

    /** A connection to the server of {@code settings}, not started; {@code label} names it in messages. */
    McpConnection(int generation, McpSettings.Server settings, String label, Owner owner) {
        this.generation = generation;
        this.settings = settings;
        this.label = label;
        this.owner = owner;
        McpClientTransport raw;
        if (settings.stdio()) {
            stdio = new StdioTransport(settings, MAPPER, McpThreads.WORK, (why, stderr) -> owner.lost(this, why,
                    stderr.isEmpty() ? "" : ". Its last stderr lines: " + stderr));
            raw = stdio;
        } else {
            stdio = null;
            URI u = settings.url();
            String base = u.getScheme() + "://" + u.getRawAuthority();
            String endpoint = (u.getRawPath() == null || u.getRawPath().isEmpty() ? "/" : u.getRawPath())
                    + (u.getRawQuery() == null ? "" : "?" + u.getRawQuery());
            var b = HttpClientStreamableHttpTransport.builder(base).endpoint(endpoint).jsonMapper(MAPPER)
                    .connectTimeout(settings.startTimeout()).openConnectionOnStartup(false);
            if (!settings.headers().isEmpty()) {
                b.addHttpRequestCustomizer((request, method, uri, body, context) -> settings.headers().forEach(request::header));
            }
            raw = b.build();
        }
        transport = new CancellableTransport(raw);
        Duration limit = settings.callTimeout().compareTo(settings.startTimeout()) > 0 ? settings.callTimeout() : settings.startTimeout();
        client = McpClient.async(transport)
                // McpServer keeps every limit itself (per call, per start, per ping); the SDK's is a backstop.
                .requestTimeout(limit.plus(settings.pingTimeout()).plusSeconds(5))
                .initializationTimeout(settings.startTimeout().plusSeconds(5))
                .clientInfo(McpSchema.Implementation.builder("agentswarm", VERSION).build())
                .capabilities(McpSchema.ClientCapabilities.builder().build())
                .toolsChangeConsumer(tools -> Mono.fromRunnable(() -> owner.listed(this, tools)))
                .loggingConsumer(n -> Mono.fromRunnable(() -> LOG.debug("MCP server '{}' logs ({}): {}", label, n.level(), n.data())))
                .jsonSchemaValidator(NO_OUTPUT_VALIDATION)
                .build();
    }

    void send(McpCall call, Map<String, Object> arguments) {
        if (call.result.isDone()) return;
        call.connection = this;
        inflight.add(call);
        if (lost != null) { // lost between the lookup and now: the owner's lost() may have missed this call
            call.finish(McpMetrics.Outcome.FAILED, null, new McpException("MCP server '" + label + "' " + lost + " (the call was not sent)", ToolStatus.SERVER_DOWN));
            return;
        }
        McpSchema.CallToolRequest request = new McpSchema.CallToolRequest(call.tool, arguments, Map.of(CancellableTransport.CALL_KEY, call.key));
        call.subscription = client.callTool(request).subscribe(r -> answered(call, r), e -> failed(call, e));
    }

    private void answered(McpCall call, McpSchema.CallToolResult r) {
        owner.answered();
        String text;
        try {
            text = McpResults.render(r);
        } catch (RuntimeException e) {
            call.finish(McpMetrics.Outcome.FAILED, null, new McpException("MCP server '" + label + "' answered a result that could not be read: "
                    + McpFailures.describe(e), ToolStatus.ERROR));
            return;
        }
        if (Boolean.TRUE.equals(r.isError())) {
            call.finish(McpMetrics.Outcome.TOOL_ERROR, null, new McpToolError(text.isBlank() ? "the tool reported an error without a message" : text));
        } else {
            call.finish(McpMetrics.Outcome.OK, text, null);
        }
    }

    private void failed(McpCall call, Throwable e) {
        Throwable cause = McpFailures.unwrap(e);
        if (cause instanceof McpError error) {
            owner.answered(); // it answered, with an error
            var rpc = error.getJsonRpcError();
            String msg = rpc == null ? cause.getMessage() : rpc.message() + " (JSON-RPC error " + rpc.code() + ")";
            call.finish(McpMetrics.Outcome.TOOL_ERROR, null, new McpToolError("MCP server '" + label + "' refused the call: " + msg));
            return;
        }
        String lostAlready = lost;
        if (lostAlready != null) {
            call.finish(McpMetrics.Outcome.FAILED, null, new McpException("MCP server '" + label + "' " + lostAlready + " during the call", ToolStatus.SERVER_DOWN));
            return;
        }
        // Anything else (the session broke, the answer could not be read, the url is unreachable): a new connection.
        String why = settings.stdio() || !(McpFailures.root(cause) instanceof java.io.IOException)
                ? "failed a call (" + McpFailures.describe(cause) + ")"
                : "could not be reached at " + settings.url() + " (" + McpFailures.describe(cause) + ")";
        call.finish(McpMetrics.Outcome.FAILED, null, new McpException("MCP server '" + label + "' " + why, ToolStatus.SERVER_DOWN));
        owner.lost(this, why, "");
    }

    /** After a timeout: a server that answers no ping either is hung, and is replaced. */
    void checkAlive(long callMillis) {
        if (lost != null || !pinging.compareAndSet(false, true)) return;
        client.ping().timeout(settings.pingTimeout()).subscribe(ok -> pinging.set(false), e -> {
            pinging.set(false);
            if (McpFailures.root(e) instanceof McpError) return; // an error answer is an answer: it is alive
            owner.lost(this, "stopped answering (a call got no answer within " + callMillis + " ms, and a ping none within "
                    + McpFailures.millis(settings.pingTimeout()) + ")", "");
        });
    }

    /** Closes the session and stops the process, whatever fails; the stage completes when the process is gone. */
    CompletableFuture<Void> closeQuietly(boolean gracefully) {
        // The process first (gracefully, if so): the client's close below closes its transport at once.
        CompletableFuture<Void> stopped = stdio != null ? stdio.close(gracefully).exceptionally(e -> null)
                : CompletableFuture.completedFuture(null);
        try {
            client.close(); // the session: the SDK's pending requests end; a url server's session is closed
        } catch (RuntimeException e) {
            // closing anyway
        }
        return stopped;
    }

    /** Structured output is not validated on this side: its text goes to the model, which is the judge of it. */
    private static final JsonSchemaValidator NO_OUTPUT_VALIDATION = (schema, content) ->
            JsonSchemaValidator.ValidationResponse.asValid(null);

    private static String version() {
        String v = McpServer.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }
}
