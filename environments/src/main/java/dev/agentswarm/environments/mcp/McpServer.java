package dev.agentswarm.environments.mcp;

import static dev.agentswarm.environments.mcp.McpFailures.message;
import static dev.agentswarm.environments.mcp.McpFailures.millis;
import static dev.agentswarm.environments.mcp.McpThreads.TIMER;
import static dev.agentswarm.environments.mcp.McpThreads.WORK;

import dev.agentswarm.core.protocol.ToolStatus;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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
 * <p>Nothing here blocks its caller: calls return a stage completed on {@link McpThreads} (a timer
 * and a pool for process starts and completions), never on the caller's (Pekko's dispatcher) nor on
 * a server's reader thread. Thread-safe; the state moves under this object's lock, and no I/O
 * happens under it. A connection and its calls are {@link McpConnection} and {@link McpCall}; this
 * class starts, replaces and stops connections ({@link RestartBackoff} says when).
 */
final class McpServer {

    private static final Logger LOG = LoggerFactory.getLogger(McpServer.class);

    private final McpSettings.Server settings;
    private final boolean firstStartQuiet;
    private final String label;
    private final McpMetrics metrics;
    private final java.util.function.BiConsumer<List<McpSchema.Tool>, Set<String>> onTools;
    private final AtomicLong callKeys = new AtomicLong();

    // State, under this object's lock.
    private McpConnection current;
    private CompletableFuture<McpConnection> starting;
    private String downReason;
    private ScheduledFuture<?> retry;
    private final RestartBackoff backoff;
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
        this.backoff = new RestartBackoff(settings.backoffMin(), settings.backoffMax());
    }

    /** What this server hears from its connections. */
    private final McpConnection.Owner events = new McpConnection.Owner() {
        @Override
        public void lost(McpConnection c, String why, String detail) {
            McpServer.this.lost(c, why, detail);
        }

        @Override
        public void listed(McpConnection c, List<McpSchema.Tool> tools) {
            McpServer.this.listed(c, tools);
        }

        @Override
        public void answered() {
            healthy();
        }
    };

    /**
     * Starts the first connection; the stage completes with the tools it lists, or fails with why it
     * did not start (then the server is in its backoff, and tries again unless {@link #close closed}).
     */
    CompletableFuture<List<McpSchema.Tool>> start() {
        McpConnection c;
        synchronized (this) {
            if (closed) return CompletableFuture.failedFuture(new McpException("MCP server '" + label + "' is stopped", ToolStatus.SERVER_DOWN));
            if (current != null) return CompletableFuture.completedFuture(current.tools);
            if (starting != null) return starting.thenApply(x -> x.tools);
            try {
                c = connect();
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(new McpException("MCP server '" + label + "' could not be set up: " + message(e), ToolStatus.SERVER_DOWN));
            }
        }
        begin(c);
        return c.up.thenApply(x -> x.tools);
    }

    /** A new connection, now the one starting; under the lock. {@link #begin} starts it, outside the lock. */
    private McpConnection connect() {
        McpConnection c = new McpConnection(++generation, settings, label, events);
        starting = c.up;
        current = null;
        downReason = null;
        starts.add(c);
        return c;
    }

    /** Connections started and not yet up or lost. */
    private final Set<McpConnection> starts = ConcurrentHashMap.newKeySet();

    private void begin(McpConnection c) {
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
                        lost(c, McpFailures.startFailure(settings, e));
                    });
        } catch (RuntimeException e) {
            limit.cancel(false);
            lost(c, McpFailures.startFailure(settings, e));
        }
    }

    private void started(McpConnection c, List<McpSchema.Tool> tools) {
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
            c.closeQuietly(false);
            return;
        }
        LOG.info("MCP server '{}' is up ({}): {} tools", label, settings.describe(), tools.size());
        listed(c, tools);
        WORK.execute(() -> c.up.complete(c));
    }

    private void listed(McpConnection c, List<McpSchema.Tool> tools) {
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
    private void lost(McpConnection c, String why) {
        lost(c, why, "");
    }

    /** As {@link #lost(McpConnection, String)}, with {@code detail} (its stderr) after the message. */
    private void lost(McpConnection c, String why, String detail) {
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
                delay = backoff.next(System.nanoTime());
                downReason = why;
                retry = TIMER.schedule(this::restart, delay, TimeUnit.MILLISECONDS);
            }
        }
        if (delay >= 0 && !quiet) LOG.warn("MCP server '{}' {}; starting it again in {}", label, why, millis(Duration.ofMillis(delay)));
        String next = delay >= 0 ? "; it is started again in " + millis(Duration.ofMillis(delay)) : "";
        c.up.completeExceptionally(new McpException("MCP server '" + label + "' " + why + detail, ToolStatus.SERVER_DOWN));
        for (McpCall call : c.inflight) {
            call.finish(McpMetrics.Outcome.FAILED, null, new McpException("MCP server '" + label + "' " + why + " during the call" + next
                    + detail, ToolStatus.SERVER_DOWN));
        }
        c.closeQuietly(false);
    }

    private void restart() {
        McpConnection c;
        synchronized (this) {
            if (closed || current != null || starting != null) return;
            retry = null;
            try {
                c = connect();
            } catch (RuntimeException e) {
                long delay = backoff.next(System.nanoTime());
                downReason = "could not be set up: " + message(e);
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
        McpCall call = new McpCall(tool, Long.toString(callKeys.incrementAndGet()), callerMillis, settings.name(), label, metrics);
        CompletableFuture<String> result = call.result;
        McpConnection ready = null;
        CompletableFuture<McpConnection> wait = null;
        String refused = null;
        synchronized (this) {
            if (closed) {
                refused = "is stopped";
            } else if (current != null) {
                ready = current;
            } else if (starting != null) {
                wait = starting;
            } else {
                refused = "is restarting after it " + downReason + "; next attempt in " + millis(backoff.untilRetry(System.nanoTime()));
            }
        }
        if (refused != null) {
            call.finish(McpMetrics.Outcome.FAILED, null, new McpException("MCP server '" + label + "' " + refused, ToolStatus.SERVER_DOWN));
            return result;
        }
        ScheduledFuture<?> limit = timeoutMillis <= 0 ? null
                : TIMER.schedule(() -> call.timedOut(timeoutMillis), timeoutMillis, TimeUnit.MILLISECONDS);
        // The episode gave up (its executor's time limit, or it stopped): stop waiting, and tell the server.
        result.whenComplete((v, e) -> {
            if (limit != null) limit.cancel(false);
            if (e instanceof CancellationException) call.abandoned();
        });
        if (ready != null) {
            ready.send(call, arguments);
        } else {
            wait.whenComplete((c, e) -> {
                if (e != null) {
                    call.finish(McpMetrics.Outcome.FAILED, null, new McpException(message(e) + " (the call was not sent)", ToolStatus.SERVER_DOWN));
                } else {
                    c.send(call, arguments);
                }
            });
        }
        return result;
    }

    private synchronized void healthy() {
        backoff.reset();
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
        McpConnection c;
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
        List<McpConnection> open;
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
        for (McpConnection c : open) done = done.thenCombine(stop(c, gracefully), (a, b) -> null);
        return done;
    }

    private CompletableFuture<Void> stop(McpConnection c, boolean gracefully) {
        if (c.lost == null) c.lost = "was stopped";
        c.up.completeExceptionally(new McpException("MCP server '" + label + "' was stopped while it started", ToolStatus.SERVER_DOWN));
        for (McpCall call : c.inflight) {
            call.finish(McpMetrics.Outcome.FAILED, null, new McpException("MCP server '" + label + "' was stopped during the call", ToolStatus.SERVER_DOWN));
        }
        return c.closeQuietly(gracefully);
    }
}
