package dev.agentswarm.app.cli;

import dev.agentswarm.app.bench.EpisodesBenchmark;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "episodes", mixinStandardHelpOptions = true,
        description = {"Scripted calculator episodes through the whole runtime (sharding → worker → episode actor → policy → parser → tool).",
                "Throughput: swarm bench episodes --n 100000 --turns 5",
                "Concurrency: swarm bench episodes --n 50000 --turns 5 --inflight 10000 --latency-ms 200"})
public final class BenchEpisodesCommand implements Callable<Integer> {

    @Option(names = "--n", defaultValue = "100000", description = "Measured episodes (default ${DEFAULT-VALUE}).")
    int n;

    @Option(names = "--turns", defaultValue = "5", description = "Policy turns per episode: turns-1 calculator calls, then the answer (default ${DEFAULT-VALUE}).")
    int turns;

    @Option(names = "--inflight", defaultValue = "1000", description = "Episodes in flight at once (default ${DEFAULT-VALUE}).")
    int inflight;

    @Option(names = "--latency-ms", defaultValue = "0", description = "Model latency per turn, waited without blocking a thread (default ${DEFAULT-VALUE}).")
    long latencyMs;

    @Option(names = "--format", defaultValue = "hermes", description = "hermes (text <tool_call> parsed) or openai (native tool calls) (default ${DEFAULT-VALUE}).")
    String format;

    @Option(names = "--warmup", defaultValue = "20000", description = "Warm-up episodes before measuring (default ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--heap-probe", defaultValue = "10000", description = "Episodes held in flight to measure heap per episode; 0 skips (default ${DEFAULT-VALUE}).")
    int heapProbe;

    @Mixin
    JsonOption json;

    @Override
    public Integer call() throws Exception {
        var settings = new EpisodesBenchmark.Settings(n, turns, inflight, latencyMs, format, warmup, heapProbe);
        Map<String, Object> f = EpisodesBenchmark.run(settings, System.err::println);
        Report r = new Report();
        r.line(String.format("%d episodes × %d turns (%s format, %d in flight, model latency %d ms): %.0f episodes/s",
                n, turns, format, inflight, latencyMs, (Double) f.get("episodes_per_s")));
        r.line(String.format("  wall %.1f ms, %.2f µs/turn wall, %.2f CPU µs/turn", (Double) f.get("wall_ms"),
                (Double) f.get("mean_us_per_turn"), (Double) f.get("cpu_us_per_turn")));
        r.line(String.format("  runtime time per turn (excl. model and tool): p50 %.2f µs, p99 %.2f µs",
                (Double) f.get("overhead_us_p50"), (Double) f.get("overhead_us_p99")));
        if ((Long) f.get("heap_bytes_per_episode") >= 0) {
            r.line("  heap per in-flight episode: " + f.get("heap_bytes_per_episode") + " B at its first policy call, "
                    + f.get("heap_bytes_per_episode_mid") + " B mid-episode (with its turns so far)");
        }
        if (f.get("latency_bound_efficiency") != null) {
            r.line(String.format("  latency-bound efficiency: %.1f%% of the ideal %d episodes/s",
                    100 * (Double) f.get("latency_bound_efficiency"), Math.round(Math.min(n, inflight) / (turns * latencyMs / 1000.0))));
        }
        r.line("  dead letters " + f.get("dead_letters") + ", lost episodes " + f.get("lost_episodes") + ", wrong answers " + f.get("wrong_answers"));
        f.forEach(r::put);
        r.print(json.json);
        return 0;
    }
}
