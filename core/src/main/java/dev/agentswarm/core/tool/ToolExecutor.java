package dev.agentswarm.core.tool;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.ToolStatus;
import dev.agentswarm.core.protocol.ToolSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import dev.agentswarm.core.concurrent.Stages;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs one tool call and turns every way it can end into a {@link ToolResult} the model can read:
 * an unknown tool, arguments that are not an object or break the tool's schema, a timeout, a
 * thrown or failed call, a null result, or text too long for the context. The returned stage
 * never completes exceptionally.
 *
 * <p>Built for the hot path (millions of calls in benchmarks): a tool whose stage is already done
 * costs no timer and no extra future; a pending one gets one timer on a single shared daemon
 * scheduler, removed as soon as the tool answers. Thread-safe.
 */
public final class ToolExecutor {

    /** The smallest cap that still leaves room for some content next to the truncation marker. */
    public static final int MIN_RESULT_CHARS = 64;

    private static final String ARGUMENTS = "arguments";

    private final ToolRegistry tools;
    private final int maxResultChars;
    private final long defaultTimeoutMillis;
    /** Precomputed per tool: the registry is immutable and the texts are only needed on error paths. */
    private final Map<String, String> expectedFields;
    private final String available;

    public ToolExecutor(ToolRegistry tools, int maxResultChars, long defaultTimeoutMillis) {
        if (tools == null) throw new IllegalArgumentException("tools must not be null");
        if (maxResultChars < MIN_RESULT_CHARS) {
            throw new IllegalArgumentException("maxResultChars must be >= " + MIN_RESULT_CHARS + ", got " + maxResultChars);
        }
        if (defaultTimeoutMillis <= 0) {
            throw new IllegalArgumentException("defaultTimeoutMillis must be > 0, got " + defaultTimeoutMillis);
        }
        this.tools = tools;
        this.maxResultChars = maxResultChars;
        this.defaultTimeoutMillis = defaultTimeoutMillis;
        Map<String, String> fields = new HashMap<>();
        for (ToolSpec s : tools.specs()) fields.put(s.name(), SchemaSummary.describe(s.parameters()));
        this.expectedFields = Map.copyOf(fields);
        List<String> names = new ArrayList<>(tools.names());
        names.sort(null);
        this.available = names.isEmpty() ? "no tools are available" : "available tools: " + String.join(", ", names);
    }

    /** The episode ended: its tools free what they keep for it. */
    public void release(String episodeId) {
        tools.release(episodeId);
    }

    /**
     * Whether {@code call} may run again after a crash left it unknown whether it ran ({@link
     * Tool#idempotent}). A call this executor would refuse without running anything (an unknown tool,
     * arguments that are not an object) is; a tool whose answer throws is taken not to be.
     */
    public boolean idempotent(ToolCall call) {
        Tool tool = call == null || call.name() == null ? null : tools.find(call.name()).orElse(null);
        if (tool == null || call.arguments() == null || !call.arguments().isObject()) return true;
        try {
            return tool.idempotent(call.arguments());
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * What a resumed episode reads for a call that was in flight when its node crashed and that is not
     * run again (its tool is not idempotent): it may or may not have taken effect.
     */
    public static ToolResult interrupted(ToolCall call) {
        return new ToolResult(call.id(), call.name(), "tool '" + call.name() + "' was interrupted by a crash while it ran;"
                + " whether it took effect is unknown. It was not run again: check its effect before calling it again.",
                ToolStatus.INTERRUPTED, false, 0);
    }

    public int maxResultChars() {
        return maxResultChars;
    }

    public long defaultTimeoutMillis() {
        return defaultTimeoutMillis;
    }

    /**
     * Validates and runs {@code call}. The time limit is {@code ctx.timeoutMillis()} when positive,
     * else the default; on expiry the result is {@link ToolStatus#TIMEOUT} and the tool's future is
     * cancelled (with interruption, for tools that honour it) before the result is published.
     * {@code ctx} may be null (tests, one-off calls): the tool then gets a context with the call id
     * and the default limit.
     */
    public CompletionStage<ToolResult> execute(ToolCall call, ToolContext ctx) {
        long start = System.nanoTime();
        if (call == null) {
            return done(new ToolResult(null, null, "no tool call was given", ToolStatus.ERROR, false, System.nanoTime() - start));
        }
        String name = call.name();
        Tool tool = name == null ? null : tools.find(name).orElse(null);
        if (tool == null) {
            return done(result(call, "unknown tool '" + name + "'; " + available, ToolStatus.UNKNOWN_TOOL, start));
        }
        JsonNode args = call.arguments();
        if (args == null || !args.isObject()) {
            String got = args == null ? "nothing" : JsonSchemaValidator.describeValue(args);
            return done(result(call, "tool '" + name + "' expects a JSON object of arguments, got " + got + "\n"
                    + expected(name), ToolStatus.INVALID_ARGUMENTS, start));
        }
        List<String> violations = tool.checksOwnArguments() ? List.of() : JsonSchemaValidator.validate(tool.spec().parameters(), args, ARGUMENTS);
        if (!violations.isEmpty()) {
            StringBuilder sb = new StringBuilder("invalid arguments for tool '").append(name).append("':");
            for (String v : violations) sb.append("\n- ").append(v);
            sb.append('\n').append(expected(name));
            return done(result(call, sb.toString(), ToolStatus.INVALID_ARGUMENTS, start));
        }
        long timeout = ctx != null && ctx.timeoutMillis() > 0 ? ctx.timeoutMillis() : defaultTimeoutMillis;
        // Tools may rely on a context; a caller without one gets a neutral one carrying the call id and limit.
        ToolContext context = ctx != null ? ctx : new ToolContext("", 0, 0, call.id(), timeout);

        CompletionStage<String> stage;
        try {
            stage = tool.invoke(args, context);
        } catch (Throwable t) {
            rethrowIfFatal(t);
            return done(failure(call, t, start));
        }
        if (stage == null) {
            return done(result(call, "tool '" + name + "' returned no result", ToolStatus.ERROR, start));
        }
        CompletableFuture<String> future = Stages.direct(stage);
        if (future.isDone()) {
            // Synchronous tools (calculator, finish): no timer, no second future.
            return done(outcome(call, future, start));
        }

        CompletableFuture<ToolResult> out = new CompletableFuture<>();
        // Whoever claims first reports: the timer (then the tool's own completion, a cancellation, is
        // ignored) or the tool. The timeout cancels before it reports, so a caller that sees TIMEOUT
        // knows the tool was told to stop.
        AtomicBoolean claimed = new AtomicBoolean();
        // The timer thread only hands over: whatever the caller chained on the result must not run on it.
        ScheduledFuture<?> timer = Timers.SCHEDULER.schedule(() -> ForkJoinPool.commonPool().execute(() -> {
            if (claimed.compareAndSet(false, true)) {
                ToolResult timedOut = result(call, "tool '" + name + "' timed out after " + timeout + " ms", ToolStatus.TIMEOUT, start);
                future.cancel(true);
                out.complete(timedOut);
            }
        }), timeout, TimeUnit.MILLISECONDS);
        future.whenComplete((v, e) -> {
            timer.cancel(false);
            if (claimed.compareAndSet(false, true)) out.complete(outcome(call, future, start));
        });
        // A caller that gives up (the episode was cancelled or hit its deadline) stops the tool too.
        out.whenComplete((r, e) -> {
            if (e instanceof CancellationException) {
                timer.cancel(false);
                future.cancel(true);
            }
        });
        return out;
    }

    /** The result of a finished future; never throws. */
    private ToolResult outcome(ToolCall call, CompletableFuture<String> future, long start) {
        try {
            String value;
            try {
                value = future.join();
            } catch (CancellationException e) {
                return result(call, "tool '" + call.name() + "' was cancelled", ToolStatus.CANCELLED, start);
            } catch (CompletionException e) {
                return failure(call, e, start);
            }
            if (value == null) return result(call, "tool '" + call.name() + "' returned no result (null)", ToolStatus.ERROR, start);
            return result(call, value, ToolStatus.OK, start);
        } catch (Throwable t) {
            rethrowIfFatal(t);
            return failure(call, t, start);
        }
    }

    private ToolResult failure(ToolCall call, Throwable t, long start) {
        Throwable cause = unwrap(t);
        if (cause instanceof CancellationException) {
            return result(call, "tool '" + call.name() + "' was cancelled", ToolStatus.CANCELLED, start);
        }
        String message = cause.getMessage();
        if (message == null || message.isBlank()) message = cause.getClass().getSimpleName();
        ToolStatus status = cause instanceof ToolUnavailable down && down.status() != null ? down.status() : ToolStatus.ERROR;
        return result(call, message, status, start);
    }

    /** A result with its content capped to {@code maxResultChars}; every status is capped, only the cut is flagged. */
    private ToolResult result(ToolCall call, String content, ToolStatus status, long start) {
        boolean truncated = content.length() > maxResultChars;
        String text = truncated ? truncate(content, maxResultChars) : content;
        return new ToolResult(call.id(), call.name(), text, status, truncated, System.nanoTime() - start);
    }

    private String expected(String toolName) {
        return expectedFields.getOrDefault(toolName, "expected: (no schema)");
    }

    /**
     * {@code s} cut to at most {@code max} characters: the head, the marker
     * {@code \n…[truncated R of N characters]} where R characters were removed of N, and, when
     * there is room, a short tail after a newline (the end of an output often holds its summary or
     * error). Never splits a surrogate pair.
     */
    static String truncate(String s, int max) {
        int n = s.length();
        if (n <= max) return s;
        // The marker's length depends on how much is removed, which depends on the marker: settle it.
        // Starting from the least that must go, "removed" only grows, so this ends in a few rounds.
        int removed = n - max;
        int head = 0;
        int tail = 0;
        int tailStart = n;
        for (int round = 0; round < 8; round++) {
            int keep = Math.max(0, max - markerLength(removed, n));
            tail = keep >= 400 ? Math.min(keep / 8, 400) : 0;
            head = keep - (tail > 0 ? tail + 1 : 0); // the tail comes after its own newline
            if (head > 0 && Character.isHighSurrogate(s.charAt(head - 1))) head--;
            tailStart = n - tail;
            if (tail > 0 && Character.isLowSurrogate(s.charAt(tailStart))) {
                tailStart++;
                tail--;
            }
            int nowRemoved = n - head - tail;
            if (nowRemoved == removed) break;
            removed = nowRemoved;
        }
        StringBuilder sb = new StringBuilder(max);
        sb.append(s, 0, head).append("\n…[truncated ").append(removed).append(" of ").append(n).append(" characters]");
        if (tail > 0) sb.append('\n').append(s, tailStart, n);
        if (sb.length() > max) {
            // Not reached for caps >= MIN_RESULT_CHARS; a hard cut keeps the promise regardless.
            sb.setLength(Character.isHighSurrogate(sb.charAt(max - 1)) ? max - 1 : max);
        }
        return sb.toString();
    }

    private static int markerLength(int removed, int total) {
        return "\n…[truncated ".length() + digits(removed) + " of ".length() + digits(total) + " characters]".length();
    }

    private static int digits(int x) {
        int d = 1;
        while (x >= 10) {
            x /= 10;
            d++;
        }
        return d;
    }

    private static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private static void rethrowIfFatal(Throwable t) {
        if (t instanceof VirtualMachineError && !(t instanceof StackOverflowError)) throw (VirtualMachineError) t;
    }

    private static CompletableFuture<ToolResult> done(ToolResult r) {
        return CompletableFuture.completedFuture(r);
    }

    /** Lazily started so that executors whose tools are all synchronous never create the thread. */
    private static final class Timers {
        static final ScheduledThreadPoolExecutor SCHEDULER = create();

        private static ScheduledThreadPoolExecutor create() {
            ScheduledThreadPoolExecutor s = new ScheduledThreadPoolExecutor(1, r -> {
                Thread t = new Thread(r, "agentswarm-tool-timeouts");
                t.setDaemon(true);
                return t;
            });
            // Cancelled timers leave the queue at once: millions of fast calls must not pile them up.
            s.setRemoveOnCancelPolicy(true);
            return s;
        }
    }
}
