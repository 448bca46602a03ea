package dev.agentswarm.environments.mcp;

import dev.agentswarm.core.protocol.ToolStatus;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.Disposable;

/**
 * One tools/call in flight, from the stage its caller holds to the one completion it gets. The answer,
 * a lost connection, this side's time limit and the caller giving up race on different threads;
 * {@link #finish} lets exactly one of them complete the stage and record the call's metrics, and a
 * call that ends unanswered is cancelled at the server.
 */
final class McpCall {

    final String tool;
    final String key;
    final long startNanos = System.nanoTime();
    final long callerMillis;
    final CompletableFuture<String> result = new CompletableFuture<>();
    private final String server;
    private final String label;
    private final McpMetrics metrics;
    private final AtomicBoolean finished = new AtomicBoolean();
    volatile Disposable subscription;
    /** The connection it was sent on; null until then. */
    volatile McpConnection connection;

    /**
     * A call of {@code tool}, known to its transport by {@code key}; {@code server} names it in the
     * metrics and {@code label} in messages.
     */
    McpCall(String tool, String key, long callerMillis, String server, String label, McpMetrics metrics) {
        this.tool = tool;
        this.key = key;
        this.callerMillis = callerMillis;
        this.server = server;
        this.label = label;
        this.metrics = metrics;
    }

    /** Completes the call once, off the reader thread; true when this was the completion. */
    boolean finish(McpMetrics.Outcome outcome, String value, Throwable error) {
        if (!finished.compareAndSet(false, true)) return false;
        McpConnection c = connection;
        if (c != null) {
            c.inflight.remove(this);
            c.transport.done(key);
        }
        metrics.call(server, tool, outcome, System.nanoTime() - startNanos);
        // Off the reader thread: what callers chain on the result (a recorder writing its file) must not
        // hold up the answers to the server's other calls.
        McpThreads.WORK.execute(() -> {
            if (error != null) result.completeExceptionally(error);
            else result.complete(value);
        });
        return true;
    }

    /** This side's time limit passed. */
    void timedOut(long timeoutMillis) {
        McpConnection c = connection;
        String msg = c == null
                ? "MCP server '" + label + "' did not finish starting within the call's time limit (" + timeoutMillis + " ms)"
                : "MCP server '" + label + "' did not answer tools/call '" + tool + "' within " + timeoutMillis + " ms";
        // A server still starting is down; one that is up but slow on this call answers the model (its arguments may ask for long work).
        if (!finish(McpMetrics.Outcome.TIMEOUT, null, new McpException(msg, c == null ? ToolStatus.SERVER_DOWN : ToolStatus.ERROR))) {
            return;
        }
        Disposable d = subscription;
        if (d != null) d.dispose();
        if (c != null) {
            c.transport.cancel(key, "timed out after " + timeoutMillis + " ms");
            c.checkAlive(timeoutMillis);
        }
    }

    /** The caller cancelled the stage. */
    void abandoned() {
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
        // Cancelled at the caller's time limit (a few ms of timer slack allowed): a timeout; earlier, the episode stopped.
        boolean timeout = callerMillis > 0 && elapsed >= callerMillis - 25;
        if (!finish(timeout ? McpMetrics.Outcome.TIMEOUT : McpMetrics.Outcome.CANCELLED, null, new CancellationException())) return;
        Disposable d = subscription;
        if (d != null) d.dispose();
        McpConnection c = connection;
        if (c == null) return;
        c.transport.cancel(key, timeout ? "timed out after " + callerMillis + " ms" : "the episode gave the call up");
        if (timeout) c.checkAlive(callerMillis);
    }
}
