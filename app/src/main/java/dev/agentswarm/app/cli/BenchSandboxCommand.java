package dev.agentswarm.app.cli;

import dev.agentswarm.app.bench.SandboxBenchmark;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "sandbox", mixinStandardHelpOptions = true,
        description = {"Times model-written code in the sandbox: a one-line Python program in a fresh sandbox, as a cell of a warm"
                + " stateful session and without isolation (alternated, so the ratio holds), then calls/s with 1, 2, 4 and 8"
                + " callers at once.", "Settings: agentswarm.sandbox (needs bubblewrap unless isolation = none)."})
public final class BenchSandboxCommand implements Callable<Integer> {

    @Option(names = "--calls", defaultValue = "200", description = "Timed calls of each kind (default ${DEFAULT-VALUE}).")
    int calls;

    @Option(names = "--java", description = "Also time a Java source program (java Main.java) in a fresh sandbox.")
    boolean java;

    @Mixin
    JsonOption json;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (calls < 8) throw new IllegalArgumentException("--calls must be >= 8");
        Map<String, Object> f = SandboxBenchmark.run(dev.agentswarm.app.SwarmNode.loadConfig(null).getConfig("agentswarm.sandbox"), calls, java,
                line -> spec.commandLine().getErr().println(line));
        Report r = new Report();
        r.line(String.format("one-line Python program, %d calls each (isolation %s):", calls, f.get("isolation")));
        r.line(String.format("  fresh sandbox      p50 %6.2f ms  p99 %6.2f ms", (Double) f.get("fresh_p50_ms"), (Double) f.get("fresh_p99_ms")));
        r.line(String.format("  stateful session   p50 %6.2f ms  p99 %6.2f ms", (Double) f.get("stateful_p50_ms"),
                (Double) f.get("stateful_p99_ms")));
        r.line(String.format("  without isolation  p50 %6.2f ms  (fresh sandbox / none = %.2fx)", (Double) f.get("unisolated_p50_ms"),
                (Double) f.get("fresh_over_unisolated")));
        r.line("  calls/s by concurrency, stateful: " + f.get("calls_per_s") + "; fresh: " + f.get("fresh_runs_per_s"));
        if (f.containsKey("java_source_p50_ms")) {
            r.line(String.format("  Java source program, fresh sandbox: p50 %.1f ms, p99 %.1f ms", (Double) f.get("java_source_p50_ms"),
                    (Double) f.get("java_source_p99_ms")));
        }
        f.forEach(r::put);
        r.print(json.json);
        return 0;
    }
}
