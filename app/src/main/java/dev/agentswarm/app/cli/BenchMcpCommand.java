package dev.agentswarm.app.cli;

import dev.agentswarm.app.bench.McpBenchmark;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "mcp", mixinStandardHelpOptions = true,
        description = {"Times an MCP tool call through agentswarm (an episode's tool executor and the MCP tool: schema check,"
                + " supervisor, stdio transport, metrics) against the same call with the MCP SDK's client directly: server-everything's"
                + " echo, one call at a time and with --concurrency in flight, in alternating rounds.",
                "Needs Node.js and server-everything (testkit/ecosystem-fixtures, which bin/test installs), or --command."})
public final class BenchMcpCommand implements Callable<Integer> {

    @Option(names = "--calls", defaultValue = "5000", description = "Timed calls of each kind (default ${DEFAULT-VALUE}; as many again to warm up).")
    int calls;

    @Option(names = "--rounds", defaultValue = "10", description = "Alternating rounds the calls are split into (default ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--concurrency", defaultValue = "16", description = "Calls in flight in the concurrent part (default ${DEFAULT-VALUE}).")
    int concurrency;

    @Option(names = "--command", paramLabel = "CMD",
            description = "The server to start, e.g. \"npx -y @modelcontextprotocol/server-everything\" (split at spaces;"
                    + " default: node and testkit/ecosystem-fixtures' server-everything).")
    String command;

    @Mixin
    JsonOption json;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (calls < rounds || rounds < 1) throw new IllegalArgumentException("--calls must be at least --rounds, and --rounds at least 1");
        if (concurrency < 1) throw new IllegalArgumentException("--concurrency must be >= 1");
        List<String> cmd = command != null ? Arrays.asList(command.trim().split("\\s+")) : McpBenchmark.defaultCommand();
        if (cmd == null) {
            throw new IllegalArgumentException("server-everything not found: run bin/test once (it installs testkit/ecosystem-fixtures),"
                    + " or give --command \"npx -y @modelcontextprotocol/server-everything\"");
        }
        Map<String, Object> f = McpBenchmark.run(cmd, calls, rounds, concurrency, line -> spec.commandLine().getErr().println(line));
        Report r = new Report();
        r.line(String.format("MCP echo call, %d calls of each kind in %d alternating rounds (server: %s)", (Integer) f.get("calls_per_kind"),
                rounds, f.get("server")));
        r.line(String.format("  one at a time   agentswarm  mean %7.1f µs  p50 %7.1f µs  p99 %7.1f µs  %6d calls/s",
                f.get("sequential_agentswarm_mean_us"), f.get("sequential_agentswarm_p50_us"), f.get("sequential_agentswarm_p99_us"),
                f.get("sequential_agentswarm_calls_per_s")));
        r.line(String.format("                  SDK direct  mean %7.1f µs  p50 %7.1f µs  p99 %7.1f µs  %6d calls/s",
                f.get("sequential_sdk_mean_us"), f.get("sequential_sdk_p50_us"), f.get("sequential_sdk_p99_us"),
                f.get("sequential_sdk_calls_per_s")));
        r.line(String.format("  %2d in flight    agentswarm  mean %7.1f µs  p50 %7.1f µs  p99 %7.1f µs  %6d calls/s", concurrency,
                f.get("concurrent_agentswarm_mean_us"), f.get("concurrent_agentswarm_p50_us"), f.get("concurrent_agentswarm_p99_us"),
                f.get("concurrent_agentswarm_calls_per_s")));
        r.line(String.format("                  SDK direct  mean %7.1f µs  p50 %7.1f µs  p99 %7.1f µs  %6d calls/s",
                f.get("concurrent_sdk_mean_us"), f.get("concurrent_sdk_p50_us"), f.get("concurrent_sdk_p99_us"),
                f.get("concurrent_sdk_calls_per_s")));
        r.line(String.format("  overhead per call: %+.1f µs (%.3fx) one at a time, %+.1f µs (%.3fx) with %d in flight; throughput %.3fx",
                f.get("sequential_overhead_us"), f.get("sequential_ratio"), f.get("concurrent_overhead_us"), f.get("concurrent_ratio"),
                concurrency, f.get("concurrent_throughput_ratio")));
        f.forEach(r::put);
        r.print(json.json);
        return 0;
    }
}
