package dev.agentswarm.environments.mcp;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * What MCP servers record on the node's {@link MeterRegistry}: {@value #CALLS} (a counter tagged
 * {@code server}, {@code tool} — the server's own name of the tool — and {@code outcome}),
 * {@value #DURATION} (a timer tagged {@code server}, every call whatever its outcome) and
 * {@value #RESTARTS} (a counter tagged {@code server}: starts after a failure).
 */
public final class McpMetrics {

    public static final String CALLS = "agentswarm.mcp.calls";
    public static final String DURATION = "agentswarm.mcp.call.duration";
    public static final String RESTARTS = "agentswarm.mcp.restarts";

    /** How a call ended. */
    public enum Outcome {
        /** The tool answered. */
        OK("ok"),
        /** The tool answered with an error ({@code isError}), or the server refused the call (a JSON-RPC error). */
        TOOL_ERROR("tool_error"),
        /** The server crashed, wrote garbage, could not be reached or was restarting: no answer. */
        FAILED("failed"),
        /** No answer within the call's time limit. */
        TIMEOUT("timeout"),
        /** The episode gave the call up before its time limit (it was stopped). */
        CANCELLED("cancelled");

        final String tag;

        Outcome(String tag) {
            this.tag = tag;
        }
    }

    private final MeterRegistry registry;
    private final Map<String, Counter> calls = new ConcurrentHashMap<>();
    private final Map<String, Timer> durations = new ConcurrentHashMap<>();
    private final Map<String, Counter> restarts = new ConcurrentHashMap<>();

    public McpMetrics(MeterRegistry registry) {
        if (registry == null) throw new IllegalArgumentException("a MeterRegistry is needed (a SimpleMeterRegistry records in memory)");
        this.registry = registry;
    }

    public MeterRegistry registry() {
        return registry;
    }

    void call(String server, String tool, Outcome outcome, long nanos) {
        calls.computeIfAbsent(server + '\u0000' + tool + '\u0000' + outcome.tag, k -> Counter.builder(CALLS)
                .description("tools/call requests to MCP servers, by how they ended")
                .tag("server", server).tag("tool", tool).tag("outcome", outcome.tag).register(registry)).increment();
        durations.computeIfAbsent(server, k -> Timer.builder(DURATION)
                .description("Time from an episode's call to its MCP server's answer (or the failure)")
                .tag("server", server).register(registry)).record(nanos, TimeUnit.NANOSECONDS);
    }

    void restart(String server) {
        restarts.computeIfAbsent(server, k -> Counter.builder(RESTARTS)
                .description("MCP server starts after a crash, a hang, garbage or a failed start")
                .tag("server", server).register(registry)).increment();
    }
}
