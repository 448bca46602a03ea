package dev.agentswarm.app.bench;

import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.ToolStatus;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.core.tool.ToolContext;
import dev.agentswarm.core.tool.ToolExecutor;
import dev.agentswarm.core.tool.ToolRegistry;
import dev.agentswarm.environments.mcp.McpServers;
import dev.agentswarm.environments.mcp.McpSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What an MCP call costs through agentswarm: server-everything's {@code echo}, called as an episode
 * calls it (the tool executor: schema check, time limit; then {@code McpTool}: the server's
 * supervisor, agentswarm's stdio transport, metrics) against the same call made directly with the
 * SDK's async client over the SDK's own stdio transport, each with its own server process, in the
 * same sitting. Rounds alternate the two (and which goes first), one call at a time and then with
 * {@code concurrency} calls in flight, so a drift of the machine hits both alike.
 */
public final class McpBenchmark {

    private static final Map<String, Object> ARGS = Map.of("message", "hi");

    private McpBenchmark() {}

    /** server-everything from testkit/ecosystem-fixtures (bin/test installs it), started with node; null when absent. */
    public static List<String> defaultCommand() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            Path bin = p.resolve("testkit/ecosystem-fixtures/node_modules/.bin/mcp-server-everything");
            if (Files.exists(bin)) return List.of("node", bin.toString(), "stdio");
        }
        return null;
    }

    public static Map<String, Object> run(List<String> command, int calls, int rounds, int concurrency, Consumer<String> log) {
        var cfg = ConfigFactory.parseString("agentswarm.mcp.servers.everything.command = " + Json.write(command))
                .withFallback(ConfigFactory.load()).resolve();
        Map<String, Object> out = new LinkedHashMap<>();
        try (McpServers servers = McpServers.start(McpSettings.fromConfig(cfg), new SimpleMeterRegistry())) {
            if (!servers.servers().get(0).started()) throw new IllegalStateException(servers.servers().get(0).error());
            Tool echo = servers.tools().stream().filter(t -> t.name().equals("everything.echo")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("the server offers no echo tool: is it server-everything?"));
            ToolExecutor executor = new ToolExecutor(ToolRegistry.of(echo), 16_000, 30_000);
            var arguments = Json.MAPPER.valueToTree(ARGS);
            AtomicInteger ids = new AtomicInteger();
            Supplier<CompletableFuture<?>> ours = () -> {
                String id = "c" + ids.incrementAndGet();
                return executor.execute(new ToolCall(id, "everything.echo", arguments), new ToolContext("bench", 1, 0, id, 30_000))
                        .toCompletableFuture().thenApply(McpBenchmark::checked);
            };
            McpAsyncClient client = McpClient.async(new StdioClientTransport(ServerParameters.builder(command.get(0))
                    .args(command.subList(1, command.size())).build(), new JacksonMcpJsonMapper(Json.MAPPER)))
                    .requestTimeout(Duration.ofSeconds(30))
                    // As agentswarm's client: structured output is not validated (the SDK's default validator is left out of the build).
                    .jsonSchemaValidator((schema, content) -> JsonSchemaValidator.ValidationResponse.asValid(null))
                    .build();
            try {
                client.initialize().block(Duration.ofSeconds(30));
                McpSchema.CallToolRequest request = new McpSchema.CallToolRequest("echo", ARGS);
                Supplier<CompletableFuture<?>> direct = () -> client.callTool(request).toFuture().thenApply(McpBenchmark::checked);

                log.accept("warming up (" + calls + " calls each way, then " + calls + " with " + concurrency + " in flight)");
                sequential(ours, calls);
                sequential(direct, calls);
                concurrent(ours, calls, concurrency);
                concurrent(direct, calls, concurrency);

                int perRound = Math.max(1, calls / rounds);
                List<long[]> oursSeq = new ArrayList<>();
                List<long[]> directSeq = new ArrayList<>();
                List<long[]> oursConc = new ArrayList<>();
                List<long[]> directConc = new ArrayList<>();
                double oursSeqSeconds = 0;
                double directSeqSeconds = 0;
                double oursConcSeconds = 0;
                double directConcSeconds = 0;
                for (int r = 0; r < rounds; r++) {
                    boolean oursFirst = r % 2 == 0;
                    for (int k = 0; k < 2; k++) {
                        boolean mine = (k == 0) == oursFirst;
                        long t0 = System.nanoTime();
                        long[] lat = sequential(mine ? ours : direct, perRound);
                        double s = (System.nanoTime() - t0) / 1e9;
                        if (mine) {
                            oursSeq.add(lat);
                            oursSeqSeconds += s;
                        } else {
                            directSeq.add(lat);
                            directSeqSeconds += s;
                        }
                    }
                    for (int k = 0; k < 2; k++) {
                        boolean mine = (k == 0) == oursFirst;
                        long t0 = System.nanoTime();
                        long[] lat = concurrent(mine ? ours : direct, perRound, concurrency);
                        double s = (System.nanoTime() - t0) / 1e9;
                        if (mine) {
                            oursConc.add(lat);
                            oursConcSeconds += s;
                        } else {
                            directConc.add(lat);
                            directConcSeconds += s;
                        }
                    }
                    log.accept("round " + (r + 1) + "/" + rounds + " done");
                }
                long[] os = concat(oursSeq);
                long[] ds = concat(directSeq);
                long[] oc = concat(oursConc);
                long[] dc = concat(directConc);
                out.put("server", String.join(" ", command));
                out.put("calls_per_kind", os.length);
                out.put("rounds", rounds);
                out.put("concurrency", concurrency);
                put(out, "sequential_agentswarm", os, oursSeqSeconds);
                put(out, "sequential_sdk", ds, directSeqSeconds);
                put(out, "concurrent_agentswarm", oc, oursConcSeconds);
                put(out, "concurrent_sdk", dc, directConcSeconds);
                out.put("sequential_overhead_us", round(mean(os) - mean(ds)));
                out.put("sequential_overhead_p50_us", round(pct(os, 50) - pct(ds, 50)));
                out.put("sequential_ratio", round3(mean(os) / mean(ds)));
                out.put("concurrent_overhead_us", round(mean(oc) - mean(dc)));
                out.put("concurrent_ratio", round3(mean(oc) / mean(dc)));
                out.put("concurrent_throughput_ratio", round3((oc.length / oursConcSeconds) / (dc.length / directConcSeconds)));
            } finally {
                client.closeGracefully().block(Duration.ofSeconds(10));
            }
        }
        return out;
    }

    private static Object checked(Object r) {
        if (r instanceof ToolResult t && (t.status() != ToolStatus.OK || !t.content().equals("Echo: hi"))) {
            throw new IllegalStateException("unexpected result through agentswarm: " + t.status() + " " + t.content());
        }
        if (r instanceof McpSchema.CallToolResult c && !(c.content().get(0) instanceof McpSchema.TextContent text
                && text.text().equals("Echo: hi"))) {
            throw new IllegalStateException("unexpected result through the SDK: " + c);
        }
        return r;
    }

    /** One call at a time; each call's latency in nanoseconds. */
    private static long[] sequential(Supplier<CompletableFuture<?>> call, int n) {
        long[] lat = new long[n];
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            call.get().join();
            lat[i] = System.nanoTime() - t0;
        }
        return lat;
    }

    /** {@code n} calls with {@code inFlight} at a time (each chain starts its next call when one answers). */
    private static long[] concurrent(Supplier<CompletableFuture<?>> call, int n, int inFlight) {
        long[] lat = new long[n];
        AtomicInteger next = new AtomicInteger();
        CompletableFuture<?>[] chains = new CompletableFuture<?>[inFlight];
        for (int c = 0; c < inFlight; c++) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            chain(call, next, lat, done);
            chains[c] = done;
        }
        CompletableFuture.allOf(chains).orTimeout(10, TimeUnit.MINUTES).join();
        return lat;
    }

    private static void chain(Supplier<CompletableFuture<?>> call, AtomicInteger next, long[] lat, CompletableFuture<Void> done) {
        int i = next.getAndIncrement();
        if (i >= lat.length) {
            done.complete(null);
            return;
        }
        long t0 = System.nanoTime();
        call.get().whenComplete((r, e) -> {
            if (e != null) {
                done.completeExceptionally(e);
                return;
            }
            lat[i] = System.nanoTime() - t0;
            chain(call, next, lat, done);
        });
    }

    private static void put(Map<String, Object> out, String kind, long[] lat, double seconds) {
        out.put(kind + "_mean_us", round(mean(lat)));
        out.put(kind + "_p50_us", round(pct(lat, 50)));
        out.put(kind + "_p99_us", round(pct(lat, 99)));
        out.put(kind + "_calls_per_s", Math.round(lat.length / seconds));
    }

    private static long[] concat(List<long[]> parts) {
        return parts.stream().flatMapToLong(Arrays::stream).toArray();
    }

    private static double mean(long[] ns) {
        return Arrays.stream(ns).average().orElse(0) / 1000.0;
    }

    /** The {@code p}th percentile, in microseconds. */
    private static double pct(long[] ns, int p) {
        long[] s = ns.clone();
        Arrays.sort(s);
        return s[Math.min(s.length - 1, (int) Math.ceil(p / 100.0 * s.length) - 1)] / 1000.0;
    }

    private static double round(double v) {
        return Math.round(v * 10) / 10.0;
    }

    private static double round3(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
