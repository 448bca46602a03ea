package dev.agentswarm.environments.mcp;

import io.modelcontextprotocol.spec.McpError;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;

/**
 * How an MCP server's failures are worded: the model reads these phrases in its observations and the
 * operator in the log, so they name the innermost cause (not the SDK's and the futures' wrappers
 * around it) and say durations in the unit a person reads at a glance.
 */
final class McpFailures {

    private McpFailures() {
    }

    /** A failure's message as the model reads it. */
    static String message(Throwable e) {
        Throwable c = unwrap(e);
        return c.getMessage() == null ? c.getClass().getSimpleName() : c.getMessage();
    }

    /** Why a start failed, in a phrase after the server's name. */
    static String startFailure(McpSettings.Server settings, Throwable e) {
        Throwable root = root(e);
        if (!settings.stdio() && root instanceof java.io.IOException) {
            return "could not be reached at " + settings.url() + ": " + describe(e) + " (is it running?)";
        }
        if (root instanceof McpError) return "refused to initialize: " + describe(e);
        return "failed to start: " + describe(e);
    }

    /** The innermost cause, said with its class when its message is empty or does not say it. */
    static String describe(Throwable e) {
        Throwable root = root(e);
        if (root instanceof TimeoutException) return "timed out";
        String m = root.getMessage();
        if (m == null || m.isBlank()) return root.getClass().getSimpleName();
        return root instanceof java.io.IOException || root instanceof McpError ? m : root.getClass().getSimpleName() + ": " + m;
    }

    static Throwable root(Throwable e) {
        Throwable r = unwrap(e);
        while (r.getCause() != null && r.getCause() != r) r = r.getCause();
        return r;
    }

    static Throwable unwrap(Throwable e) {
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
}
