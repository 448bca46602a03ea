package dev.agentswarm.app.cli;

import com.typesafe.config.ConfigFactory;
import dev.agentswarm.app.bench.SearchBenchmark;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "search", mixinStandardHelpOptions = true,
        description = {"Times the multi-hop suites' BM25 search on one thread: the generated world's index, a MuSiQue"
                + " question's own index (built as each episode opens) and queries on both.",
                "MuSiQue figures need ../shared/data (agentswarm.environments.musique.heldout-path)."})
public final class BenchSearchCommand implements Callable<Integer> {

    @Option(names = "--queries", defaultValue = "200", description = "Questions used as queries (default ${DEFAULT-VALUE}).")
    int queries;

    @Option(names = "--rounds", defaultValue = "5", description = "Passes over them (default ${DEFAULT-VALUE}).")
    int rounds;

    @Mixin
    JsonOption json;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (queries < 1 || rounds < 1) throw new IllegalArgumentException("--queries and --rounds must be >= 1");
        Map<String, Object> f = SearchBenchmark.run(ConfigFactory.load(), queries, rounds,
                line -> spec.commandLine().getErr().println(line));
        Report r = new Report();
        r.line(String.format("generated world, %d pages: index built in %.2f ms", (Integer) f.get("world_pages"),
                (Double) f.get("world_build_ms")));
        r.line(String.format("  search p50 %.1f µs, p99 %.1f µs, %,.0f searches/s", (Double) f.get("world_search_us_p50"),
                (Double) f.get("world_search_us_p99"), (Double) f.get("world_search_per_s")));
        if (f.containsKey("musique_questions")) {
            r.line(String.format("MuSiQue, %d questions of 20 paragraphs: per-episode index p50 %.1f µs, p99 %.1f µs",
                    (Integer) f.get("musique_questions"), (Double) f.get("musique_build_us_p50"), (Double) f.get("musique_build_us_p99")));
            r.line(String.format("  search p50 %.1f µs, p99 %.1f µs, %,.0f searches/s", (Double) f.get("musique_search_us_p50"),
                    (Double) f.get("musique_search_us_p99"), (Double) f.get("musique_search_per_s")));
        }
        f.forEach(r::put);
        r.print(json.json);
        return 0;
    }
}
