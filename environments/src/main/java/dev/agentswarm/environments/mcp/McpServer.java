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
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * One running MCP server and what keeps it running: a connection (a process on stdio, or a session
 * at a url) through the SDK's async client, replaced when it fails. A connection that exits, writes
 * garbage, cannot be reached, fails to start, or stops answering (a call timed out and a ping got no
 * answer either) is dropped: its calls in flight fail at once with what happened, and a new one starts
 * after a backoff that doubles from {@code restart-backoff.min} to {@code max} (back to min after a
 * call is answered). Calls during the backoff fail at once, saying when the next attempt is; calls
 * while it starts wait for it within their own time limit. Every new connection lists the tools
 * again, and so does {@code notifications/tools/list_changed}: {@code onTools} hears each list, with
 * the names of the listed tools that only run as MCP tasks.
 *
 * <p>Nothing here blocks its caller: calls return a stage completed on this class's own threads (a
 * timer and a pool for process starts and completions), never on the caller's (Pekko's dispatcher)
 * nor on a server's reader thread. Thread-safe; the state moves under this object's lock, and no
 * I/O happens under it.
 */
final class McpServer {

    private static final Logger LOG = LoggerFactory.getLogger(McpServer.class);
    static final McpJsonMapper MAPPER = new JacksonMcpJsonMapper(Json.MAPPER);
    private static final String VERSION = version();

    /** Timers of every MCP server of the JVM: call limits, start limits, backoffs. */
    static final ScheduledThreadPoolExecutor TIMER = timer();
    /** Process starts and stops, and the completion of calls (off the servers' reader threads). */
    static final ExecutorService WORK = Executors.newCachedThreadPool(daemon("agentswarm-mcp"));

    private final McpSettings.Server settings;
    private final boolean firstStartQuiet;
    private final String label;
    private final McpMetrics metrics;
    private final java.util.function.BiConsumer<List<McpSchema.Tool>, Set<String>> onTools;
    private final AtomicLong callKeys = new AtomicLong();

    // State, under this object's lock.
    private Connection current;
    private CompletableFuture<Connection> starting;
    private String downReason;
    private long retryAtNanos;
    private ScheduledFuture<?> retry;
    private long nextBackoffMillis;
    private int generation;
    private boolean closed;
    private boolean everStarted;

    /**
     * A server of {@code settings}; {@code label} names it in messages (its name, or its name and
     * episode for a per-episode one). Nothing starts before {@link #start()}.
     */
    McpServer(McpSettings.Server settings, String label, McpMetrics metrics,
              java.util.function.BiConsumer<List<McpSchema.Tool>, Set<String>> onTools) {
        this(settings, label, metrics, onTools, false);
    }

    /**
     * {@code firstStartQuiet}: a failed first start is not logged here (the node's start reports it
     * and stops this server: it offers nothing, so it is not started again).
     */
    McpServer(McpSettings.Server settings, String label, McpMetrics metrics,
              java.util.function.BiConsumer<List<McpSchema.Tool>, Set<String>> onTools, boolean firstStartQuiet) {
        this.firstStartQuiet = firstStartQuiet;
        this.settings = settings;
        this.label = label;
        this.metrics = metrics;
        this.onTools = onTools;
        this.nextBackoffMillis = settings.backoffMin().toMillis();
    }

    /** One connection: its client, its transport, the calls it has in flight. */
    private final class Connection {
        final int generation;
        final McpAsyncClient client;
        final CancellableTransport transport;
        final StdioTransport stdio;
        final Set<Call> inflight = ConcurrentHashMap.newKeySet();
        final AtomicBoolean pinging = new AtomicBoolean();
        final CompletableFuture<Connection> up = new CompletableFuture<>();
        volatile String lost;
        volatile List<McpSchema.Tool> tools = List.of();

        Connection(int generation) {
            this.generation = generation;
            McpClientTransport raw;
            if (settings.stdio()) {
                stdio = new StdioTransport(settings, MAPPER, WORK, (why, stderr) -> lost(this, why,
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
                    // This class keeps every limit itself (per call, per start, per ping); the SDK's is a backstop.
                    .requestTimeout(limit.plus(settings.pingTimeout()).plusSeconds(5))
                    .initializationTimeout(settings.startTimeout().plusSeconds(5))
                    .clientInfo(McpSchema.Implementation.builder("agentswarm", VERSION).build())
                    .capabilities(McpSchema.ClientCapabilities.builder().build())
                    .toolsChangeConsumer(tools -> Mono.fromRunnable(() -> listed(this, tools)))
                    .loggingConsumer(n -> Mono.fromRunnable(() -> LOG.debug("MCP server '{}' logs ({}): {}", label, n.level(), n.data())))
                    .jsonSchemaValidator(NO_OUTPUT_VALIDATION)
                    .build();
        }
    }

    /** A call in flight. */
    private final class Call {
        final String tool;
        final String key;
        final long startNanos;
        final long callerMillis;
        final CompletableFuture<String> result;
        final AtomicBoolean finished = new AtomicBoolean();
        volatile Disposable subscription;
        volatile Connection connection;

        Call(String tool, long startNanos, CompletableFuture<String> result, long callerMillis) {
            this.tool = tool;
            this.callerMillis = callerMillis;
            this.key = Long.toString(callKeys.incrementAndGet());
            this.startNanos = startNanos;
            this.result = result;
        }

        /** Completes the call once, off the reader thread; true when this was the completion. */
        boolean finish(McpMetrics.Outcome outcome, String value, Throwable error) {
            if (!finished.compareAndSet(false, true)) return false;
            Connection c = connection;
            if (c != null) {
                c.inflight.remove(this);
                c.transport.done(key);
            }
            metrics.call(settings.name(), tool, outcome, System.nanoTime() - startNanos);
            // Off the reader thread: what callers chain on the result (a recorder writing its file) must not
            // hold up the answers to the server's other calls.
            WORK.execute(() -> {
                if (error != null) result.completeExceptionally(error);
                else result.complete(value);
            });
            return true;
        }
    }

    /**
     * Starts the first connection; the stage completes with the tools it lists, or fails with why it
     * did not start (then the server is in its backoff, and tries again unless {@link #close closed}).
     */
    CompletableFuture<List<McpSchema.Tool>> start() {
        Connection c;
        synchronized (this) {
            if (closed) return CompletableFuture.failedFuture(new McpException("MCP server '" + label + "' is stopped"));
            if (current != null) return CompletableFuture.completedFuture(current.tools);
            if (starting != null) return starting.thenApply(x -> x.tools);
            try {
                c = connect();
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(new McpException("MCP server '" + label + "' could not be set up: " + message(e)));
            }
        }
        begin(c);
        return c.up.thenApply(x -> x.tools);
    }

    /** A new connection, now the one starting; under the lock. {@link #begin} starts it, outside the lock. */
    private Connection connect() {
        Connection c = new Connection(++generation);
        starting = c.up;
        current = null;
        downReason = null;
        starts.add(c);
        return c;
    }

    /** Connections started and not yet up or lost. */
    private final Set<Connection> starts = ConcurrentHashMap.newKeySet();

    private void begin(Connection c) {
        ScheduledFuture<?> limit = TIMER.schedule(() -> lost(c, "did not finish starting within " + millis(settings.startTimeout())
                + " (initialize and tools/list got no answer)"), settings.startTimeout().toMillis(), TimeUnit.MILLISECONDS);
        try {
            c.client.initialize()
                    .then(Mono.defer(() -> c.client.listTools()))
                    .subscribe(list -> {
                        limit.cancel(false);
                        started(c, list.tools() == null ? List.of() : list.tools());
                    }, e -> {
                        limit.cancel(false);
                        lost(c, startFailure(e));
                    });
        } catch (RuntimeException e) {
            limit.cancel(false);
            lost(c, startFailure(e));
        }
    }

    private void started(Connection c, List<McpSchema.Tool> tools) {
        boolean stale;
        synchronized (this) {
            starts.remove(c);
            stale = closed || c.lost != null || starting != c.up;
            if (!stale) {
                starting = null;
                current = c;
                c.tools = tools;
                everStarted = true;
            }
        }
        if (stale) {
            // Lost, replaced or stopped meanwhile: whoever did it has answered its waiters.
            closeQuietly(c, false);
            return;
        }
        LOG.info("MCP server '{}' is up ({}): {} tools", label, settings.describe(), tools.size());
        listed(c, tools);
        WORK.execute(() -> c.up.complete(c));
    }

    private void listed(Connection c, List<McpSchema.Tool> tools) {
        if (c.lost != null) return;
        try {
            onTools.accept(tools == null ? List.of() : tools, c.transport.taskOnly());
        } catch (RuntimeException e) {
            LOG.warn("MCP server '{}': its tool list could not be taken in", label, e);
        }
    }

    /**
     * {@code c} can no longer serve: its calls in flight fail with {@code why}, it is closed (its
     * process and children killed), and the next connection is scheduled after the backoff.
     */
    private void lost(Connection c, String why) {
        lost(c, why, "");
    }

    /** As {@link #lost(Connection, String)}, with {@code detail} (its stderr) after the message. */
    private void lost(Connection c, String why, String detail) {
        long delay;
        boolean quiet;
        synchronized (this) {
            quiet = firstStartQuiet && !everStarted;
            if (c.lost != null) return;
            c.lost = why;
            starts.remove(c);
            boolean isCurrent = current == c || starting == c.up;
            if (closed || !isCurrent) {
                delay = -1;
            } else {
                starting = null;
                current = null;
                delay = nextBackoffMillis;
                nextBackoffMillis = Math.min(nextBackoffMillis * 2, settings.backoffMax().toMillis());
                downReason = why;
                retryAtNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delay);
                retry = TIMER.schedule(this::restart, delay, TimeUnit.MILLISECONDS);
            }
        }
        if (delay >= 0 && !quiet) LOG.warn("MCP server '{}' {}; starting it again in {}", label, why, millis(Duration.ofMillis(delay)));
        String next = delay >= 0 ? "; it is started again in " + millis(Duration.ofMillis(delay)) : "";
        c.up.completeExceptionally(new McpException("MCP server '" + label + "' " + why + detail));
        for (Call call : c.inflight) {
            call.finish(McpMetrics.Outcome.FAILED, null, new McpException("MCP server '" + label + "' " + why + " during the call" + next
                    + detail));
        }
        closeQuietly(c, false);
    }

    private void restart() {
        Connection c;
        synchronized (this) {
            if (closed || current != null || starting != null) return;
            retry = null;
            try {
                c = connect();
            } catch (RuntimeException e) {
                long delay = nextBackoffMillis;
                nextBackoffMillis = Math.min(nextBackoffMillis * 2, settings.backoffMax().toMillis());
                downReason = "could not be set up: " + message(e);
                retryAtNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delay);
                retry = TIMER.schedule(this::restart, delay, TimeUnit.MILLISECONDS);
                return;
            }
        }
        metrics.restart(settings.name());
        begin(c);
    }

    /**
     * Calls {@code tool} with {@code arguments}; the stage holds the text the model reads, or fails
     * with what the model should read instead ({@link McpToolError} for the tool's own error).
     * {@code timeoutMillis} is this side's limit (0: none); {@code callerMillis} the caller's own (the
     * episode's tool executor cancels the stage then; 0: none): a cancellation at that time is a
     * timeout like this side's, and the server is told and checked in both cases.
     */
    CompletionStage<String> call(String tool, Map<String, Object> arguments, long timeoutMillis, long callerMillis) {
        long start = System.nanoTime();
        CompletableFuture<String> result = new CompletableFuture<>();
        Call call = new Call(tool, start, result, callerMillis);
        Connection ready = null;
        CompletableFuture<Connection> wait = null;
        String refused = null;
        synchronized (this) {
            if (closed) {
                refused = "is stopped";
            } else if (current != null) {
                ready = current;
            } else if (starting != null) {
                wait = starting;
            } else {
                long left = Math.max(0, retryAtNanos - System.nanoTime());
                refused = "is restarting after it " + downReason + "; next attempt in " + millis(Duration.ofNanos(left));
            }
        }
        if (refused != null) {
            call.finish(McpMetrics.Outcome.FAILED, null, new McpException("MCP server '" + label + "' " + refused));
            return result;
        }
        ScheduledFuture<?> limit = timeoutMillis <= 0 ? null
                : TIMER.schedule(() -> timedOut(call, timeoutMillis), timeoutMillis, TimeUnit.MILLISECONDS);
        // The episode gave up (its executor's time limit, or it stopped): stop waiting, and tell the server.
        result.whenComplete((v, e) -> {
            if (limit != null) limit.cancel(false);
            if (e instanceof CancellationException) abandoned(call);
        });
        if (ready != null) {
            send(ready, call, arguments);
        } else {
            wait.whenComplete((c, e) -> {
                if (e != null) {
                    call.finish(McpMetrics.Outcome.FAILED, null, new McpException(message(e) + " (the call was not sent)"));
                } else {
                    send(c, call, arguments);
                }
            });
        }
        return result;
    }

    private void send(Connection c, Call call, Map<String, Object> arguments) {
        if (call.result.isDone()) return;
        call.connection = c;
        c.inflight.add(call);
        if (c.lost != null) { // lost between the lookup and now: lost() may have missed this call
            call.finish(McpMetrics.Outcome.FAILED, null, new McpException("MCP server '" + label + "' " + c.lost + " (the call was not sent)"));
            return;
        }
        McpSchema.CallToolRequest request = new McpSchema.CallToolRequest(call.tool, arguments, Map.of(CancellableTransport.CALL_KEY, call.key));
        call.subscription = c.client.callTool(request).subscribe(r -> answered(c, call, r), e -> failed(c, call, e));
    }

    private void answered(Connection c, Call call, McpSchema.CallToolResult r) {
        healthy();
        String text;
        try {
            text = McpResults.render(r);
        } catch (RuntimeException e) {
            call.finish(McpMetrics.Outcome.FAILED, null, new McpException("MCP server '" + label + "' answered a result that could not be read: "
                    + describe(e)));
            return;
        }
        if (Boolean.TRUE.equals(r.isError())) {
            call.finish(McpMetrics.Outcome.TOOL_ERROR, null, new McpToolError(text.isBlank() ? "the tool reported an error without a message" : text));
        } else {
            call.finish(McpMetrics.Outcome.OK, text, null);
        }
    }

    private void failed(Connection c, Call call, Throwable e) {
        Throwable cause = unwrap(e);
        if (cause instanceof McpError error) {
            healthy(); // it answered, with an error
            var rpc = error.getJsonRpcError();
            String msg = rpc == null ? cause.getMessage() : rpc.message() + " (JSON-RPC error " + rpc.code() + ")";
            call.finish(McpMetrics.Outcome.TOOL_ERROR, null, new McpToolError("MCP server '" + label + "' refused the call: " + msg));
            return;
        }
        String lostAlready = c.lost;
        if (lostAlready != null) {
            call.finish(McpMetrics.Outcome.FAILED, null, new McpException("MCP server '" + label + "' " + lostAlready + " during the call"));
            return;
        }
        // Anything else (the session broke, the answer could not be read, the url is unreachable): a new connection.
        String why = settings.stdio() || !(root(cause) instanceof java.io.IOException) ? "failed a call (" + describe(cause) + ")"
                : "could not be reached at " + settings.url() + " (" + describe(cause) + ")";
        call.finish(McpMetrics.Outcome.FAILED, null, new McpException("MCP server '" + label + "' " + why));
        lost(c, why);
    }

    private void timedOut(Call call, long timeoutMillis) {
        Connection c = call.connection;
        String msg = c == null
                ? "MCP server '" + label + "' did not finish starting within the call's time limit (" + timeoutMillis + " ms)"
                : "MCP server '" + label + "' did not answer tools/call '" + call.tool + "' within " + timeoutMillis + " ms";
        // A server still starting is down; one that is up but slow on this call answers the model (its arguments may ask for long work).
        if (!call.finish(McpMetrics.Outcome.TIMEOUT, null, new McpException(msg, c == null ? ToolStatus.SERVER_DOWN : ToolStatus.ERROR))) {
            return;
        }
        Disposable d = call.subscription;
        if (d != null) d.dispose();
        if (c != null) {
            c.transport.cancel(call.key, "timed out after " + timeoutMillis + " ms");
            checkAlive(c, timeoutMillis);
        }
    }

    private void abandoned(Call call) {
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - call.startNanos);
        // Cancelled at the caller's time limit (a few ms of timer slack allowed): a timeout; earlier, the episode stopped.
        boolean timeout = call.callerMillis > 0 && elapsed >= call.callerMillis - 25;
        if (!call.finish(timeout ? McpMetrics.Outcome.TIMEOUT : McpMetrics.Outcome.CANCELLED, null, new CancellationException())) return;
        Disposable d = call.subscription;
        if (d != null) d.dispose();
        Connection c = call.connection;
        if (c == null) return;
        c.transport.cancel(call.key, timeout ? "timed out after " + call.callerMillis + " ms" : "the episode gave the call up");
        if (timeout) checkAlive(c, call.callerMillis);
    }

    /** After a timeout: a server that answers no ping either is hung, and is replaced. */
    private void checkAlive(Connection c, long callMillis) {
        if (c.lost != null || !c.pinging.compareAndSet(false, true)) return;
        c.client.ping().timeout(settings.pingTimeout()).subscribe(ok -> c.pinging.set(false), e -> {
            c.pinging.set(false);
            if (root(e) instanceof McpError) return; // an error answer is an answer: it is alive
            lost(c, "stopped answering (a call got no answer within " + callMillis + " ms, and a ping none within "
                    + millis(settings.pingTimeout()) + ")");
        });
    }

    private synchronized void healthy() {
        nextBackoffMillis = settings.backoffMin().toMillis();
    }

    /** Whether a connection is up now. */
    synchronized boolean up() {
        return current != null;
    }

    /** Whether it ever came up. */
    synchronized boolean everStarted() {
        return everStarted;
    }

    /** Why it is down, or null when it is up or starting. */
    synchronized String downReason() {
        return current == null && starting == null ? downReason : null;
    }

    /** The process of a stdio server now, or null. */
    ProcessHandle process() {
        Connection c;
        synchronized (this) {
            c = current;
        }
        return c == null || c.stdio == null ? null : c.stdio.process();
    }

    /**
     * Stops it for good: calls in flight fail, no restart, the process and its children are stopped
     * (gracefully: stdin closed, SIGTERM, SIGKILL, a second apart; or at once).
     */
    CompletableFuture<Void> close(boolean gracefully) {
        List<Connection> open;
        synchronized (this) {
            if (closed) return CompletableFuture.completedFuture(null);
            closed = true;
            open = new java.util.ArrayList<>(starts);
            if (current != null) open.add(current);
            starts.clear();
            current = null;
            starting = null;
            if (retry != null) retry.cancel(false);
        }
        CompletableFuture<Void> done = CompletableFuture.completedFuture(null);
        for (Connection c : open) done = done.thenCombine(stop(c, gracefully), (a, b) -> null);
        return done;
    }

    private CompletableFuture<Void> stop(Connection c, boolean gracefully) {
        if (c.lost == null) c.lost = "was stopped";
        c.up.completeExceptionally(new McpException("MCP server '" + label + "' was stopped while it started"));
        for (Call call : c.inflight) {
            call.finish(McpMetrics.Outcome.FAILED, null, new McpException("MCP server '" + label + "' was stopped during the call"));
        }
        return closeQuietly(c, gracefully);
    }

    private static CompletableFuture<Void> closeQuietly(Connection c, boolean gracefully) {
        // The process first (gracefully, if so): the client's close below closes its transport at once.
        CompletableFuture<Void> stopped = c.stdio != null ? c.stdio.close(gracefully).exceptionally(e -> null)
                : CompletableFuture.completedFuture(null);
        try {
            c.client.close(); // the session: the SDK's pending requests end; a url server's session is closed
        } catch (RuntimeException e) {
            // closing anyway
        }
        return stopped;
    }

    /** A failure's message as the model reads it. */
    static String message(Throwable e) {
        Throwable c = unwrap(e);
        return c.getMessage() == null ? c.getClass().getSimpleName() : c.getMessage();
    }

    /** Why a start failed, in a phrase after the server's name. */
    private String startFailure(Throwable e) {
        Throwable root = root(e);
        if (!settings.stdio() && root instanceof java.io.IOException) {
            return "could not be reached at " + settings.url() + ": " + describe(e) + " (is it running?)";
        }
        if (root instanceof McpError) return "refused to initialize: " + describe(e);
        return "failed to start: " + describe(e);
    }

    /** The innermost cause, said with its class when its message is empty or does not say it. */
    private static String describe(Throwable e) {
        Throwable root = root(e);
        if (root instanceof TimeoutException) return "timed out";
        String m = root.getMessage();
        if (m == null || m.isBlank()) return root.getClass().getSimpleName();
        return root instanceof java.io.IOException || root instanceof McpError ? m : root.getClass().getSimpleName() + ": " + m;
    }

    private static Throwable root(Throwable e) {
        Throwable r = unwrap(e);
        while (r.getCause() != null && r.getCause() != r) r = r.getCause();
        return r;
    }

    private static Throwable unwrap(Throwable e) {
        while ((e instanceof CompletionException || e instanceof java.util.concurrent.ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    static String millis(Duration d) {
        long ms = d.toMillis();
        if (ms < 1000) return ms + " ms";
        return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
    }

    /** Structured output is not validated on this side: its text goes to the model, which is the judge of it. */
    private static final JsonSchemaValidator NO_OUTPUT_VALIDATION = (schema, content) ->
            JsonSchemaValidator.ValidationResponse.asValid(null);

    private static ScheduledThreadPoolExecutor timer() {
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, daemon("agentswarm-mcp-timer"));
        t.setRemoveOnCancelPolicy(true);
        return t;
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    private static String version() {
        String v = McpServer.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }
}
