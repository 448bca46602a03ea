package dev.agentswarm.app.cli;

import com.typesafe.config.Config;
import dev.agentswarm.app.SwarmNode;
import dev.agentswarm.app.bench.ServeBenchmark;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Chat completions through swarm serve, sent by clients of the official OpenAI Java SDK, beside the same",
                "requests sent to the node's policy server directly, in one sitting: completions/s, p50/p99 latency, the process's CPU",
                "time per completion (clients included) and their ratios (the HTTP layer's cost). The embedded model as configured",
                "(the small preset by default; --preset to change)."})
public final class BenchServeCommand implements Callable<Integer> {

    @Option(names = "--clients", split = ",", defaultValue = "1,16,64", description = "Concurrent clients per round (default ${DEFAULT-VALUE}).")
    List<Integer> clients;

    @Option(names = "--requests", defaultValue = "256", description = "Completions per round (default ${DEFAULT-VALUE}).")
    int requests;

    @Option(names = "--max-tokens", defaultValue = "16", description = "max_tokens of each completion (default ${DEFAULT-VALUE}).")
    int maxTokens;

    @Option(names = "--warmup", defaultValue = "128", description = "Completions of each kind at each client count before measuring it (default ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--reps", defaultValue = "3", description = "Alternating direct/HTTP rounds per client count; medians count (default ${DEFAULT-VALUE}).")
    int reps;

    @Option(names = "--with-key", description = "The server requires an API key (a random one) that every client sends: run with and"
            + " without to see what the key check costs.")
    boolean withKey;

    @Option(names = "--preset", paramLabel = "NAME", description = "The model preset: tiny, small or base (default: the configured one, small).")
    String preset;

    @Option(names = "--config", paramLabel = "FILE", description = "HOCON file overriding the node's settings.")
    Path config;

    @Mixin
    JsonOption json;

    @Override
    public Integer call() throws Exception {
        try {
            Class.forName("com.openai.client.okhttp.OpenAIOkHttpClient");
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException("swarm bench serve drives the server with the OpenAI Java SDK, which mvn package copies"
                    + " to app/target/openai-sdk/: run it through bin/swarm (or put those jars on the class path)");
        }
        var settings = new ServeBenchmark.Settings(clients, requests, maxTokens, warmup, reps, withKey);
        Config cfg = SwarmNode.loadConfig(config);
        if (preset != null) {
            cfg = cfg.withValue("agentswarm.policy.embedded.model.preset", com.typesafe.config.ConfigValueFactory.fromAnyRef(preset));
        }
        String model = cfg.getString("agentswarm.policy.embedded.model.preset");
        Map<String, Object> f = ServeBenchmark.run(cfg, model, settings, System.err::println);
        Report r = new Report();
        r.line(String.format("swarm serve on %s, %d completions of at most %d tokens per round, medians of %d (OpenAI Java SDK over"
                + " HTTP%s vs the policy server directly):", model, requests, maxTokens, reps, withKey ? " with an API key" : ""));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> rounds = (List<Map<String, Object>>) f.get("rounds");
        for (Map<String, Object> m : rounds) {
            r.line(String.format("  %3d clients: direct %7.1f/s p50 %7.1f ms p99 %7.1f ms %6.2f CPU ms | http %7.1f/s p50 %7.1f ms"
                            + " p99 %7.1f ms %6.2f CPU ms | http costs %.3fx throughput, %.3fx p50, %.3fx CPU%s", m.get("clients"),
                    m.get("direct_per_s"), m.get("direct_p50_ms"), m.get("direct_p99_ms"), m.get("direct_cpu_ms"), m.get("http_per_s"),
                    m.get("http_p50_ms"), m.get("http_p99_ms"), m.get("http_cpu_ms"), m.get("throughput_ratio"), m.get("p50_ratio"),
                    m.get("cpu_ratio"), Boolean.TRUE.equals(m.get("same_tokens")) ? "" : " (token counts differ!)"));
        }
        f.forEach(r::put);
        r.print(json.json);
        return 0;
    }
}
