package dev.agentswarm.environments.mcp;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads MCP servers complete their work on, so that none of it runs on a caller's thread
 * (Pekko's dispatcher) or on a server's reader thread. Shared by every server of the JVM; daemon
 * threads, so they never hold the JVM up.
 */
final class McpThreads {

    /** Timers of every MCP server of the JVM: call limits, start limits, backoffs. */
    static final ScheduledThreadPoolExecutor TIMER = timer();
    /** Process starts and stops, and the completion of calls (off the servers' reader threads). */
    static final ExecutorService WORK = Executors.newCachedThreadPool(daemon("agentswarm-mcp"));

    private McpThreads() {
    }

    private static ScheduledThreadPoolExecutor timer() {
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, daemon("agentswarm-mcp-timer"));
        t.setRemoveOnCancelPolicy(true);
        return t;
    }

    private static ThreadFactory daemon(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
