package dev.agentswarm.app.cli;

import dev.agentswarm.app.bench.ClusterBenchmark;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "cluster", mixinStandardHelpOptions = true,
        description = {"Starts real worker JVMs (swarm node) on this machine and measures: episodes/s with 1, 2 and 3 of them on a",
                "latency-bound scripted model; recovery from a SIGKILL of one mid-run (lost and duplicated episodes must be 0);",
                "and how many episodes/s one rollout coordinator dispatches and records when simulated worker nodes answer at once."})
public final class BenchClusterCommand implements Callable<Integer> {

    @Option(names = "--workers", split = ",", defaultValue = "1,2,3", description = "Worker JVM counts to measure (default ${DEFAULT-VALUE}).")
    List<Integer> workers;

    @Option(names = "--inflight", defaultValue = "1000", description = "Episodes in flight per worker node (default ${DEFAULT-VALUE}).")
    int inflight;

    @Option(names = "--turns", defaultValue = "3", description = "Policy turns per episode (default ${DEFAULT-VALUE}).")
    int turns;

    @Option(names = "--latency-ms", defaultValue = "200", description = "The scripted model's latency per turn (default ${DEFAULT-VALUE}).")
    long latencyMs;

    @Option(names = "--rounds", defaultValue = "5", description = "Measured episodes per node, in multiples of --inflight (default ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--recovery-episodes", defaultValue = "600",
            description = "Episodes in flight on 3 worker JVMs when one is killed (default ${DEFAULT-VALUE}; 0 skips).")
    int recoveryEpisodes;

    @Option(names = "--simulated-nodes", defaultValue = "3",
            description = "Simulated worker nodes answering at once, for the coordinator's rate (default ${DEFAULT-VALUE}; 0 skips).")
    int simulatedNodes;

    @Option(names = "--coordinator-episodes", defaultValue = "50000", description = "Episodes for the coordinator's rate (default ${DEFAULT-VALUE}).")
    int coordinatorEpisodes;

    // On by default: without fallbackValue picocli's negatable flag sets the opposite of the default, so --no-cpu-bound
    // left it on and --cpu-bound turned it off.
    @Option(names = "--cpu-bound", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Also measure with a model that answers at once: bound by this machine's cores, once the worker JVMs are warm"
                    + " and in their first episodes (default ${DEFAULT-VALUE}).")
    boolean cpuBound;

    @Option(names = "--weight-rounds", defaultValue = "5",
            description = "Rounds of publishing 10 MB and 100 MB of weights to 2 worker nodes (default ${DEFAULT-VALUE}; 0 skips).")
    int weightRounds;

    @Mixin
    JsonOption json;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        Map<String, Object> f = ClusterBenchmark.run(new ClusterBenchmark.Settings(workers, inflight, turns, latencyMs, rounds, recoveryEpisodes,
                simulatedNodes, coordinatorEpisodes, cpuBound, weightRounds), line -> spec.commandLine().getErr().println(line));
        Report r = new Report();
        r.line("episodes/s by worker JVMs: " + f.get("episodes_per_s_by_workers") + " (ideal " + f.get("ideal_episodes_per_s_per_worker")
                + " per worker: " + inflight + " in flight, " + turns + " turns of " + latencyMs + " ms)");
        if (f.containsKey("episodes_per_s_by_workers_cpu_bound")) {
            r.line("model answering at once (CPU-bound, " + f.get("cores") + " cores shared by every JVM): "
                    + f.get("episodes_per_s_by_workers_cpu_bound") + " once the JVMs are warm (after " + f.get("cpu_bound_warmup_s")
                    + " s); " + f.get("episodes_per_s_by_workers_cpu_bound_cold") + " in their first episodes");
        }
        if (f.containsKey("weights_100mb_s")) {
            r.line("weights publish → served on 2 worker nodes: 10 MB " + f.get("weights_10mb_s") + " s, 100 MB " + f.get("weights_100mb_s") + " s");
        }
        if (f.containsKey("recovery_s")) {
            r.line("SIGKILL of a worker JVM: recovered in " + f.get("recovery_s") + " s; lost " + f.get("lost_episodes") + ", duplicated "
                    + f.get("duplicate_episodes"));
        }
        if (f.containsKey("coordinator_max_episodes_per_s")) {
            r.line("one coordinator: " + f.get("coordinator_max_episodes_per_s") + " episodes/s dispatched and recorded ("
                    + f.get("coordinator_simulated_nodes") + " simulated worker nodes answering at once)");
        }
        f.forEach(r::put);
        r.print(json.json);
        long lost = ((Number) f.getOrDefault("lost_episodes", 0)).longValue();
        long dup = ((Number) f.getOrDefault("duplicate_episodes", 0)).longValue();
        return lost == 0 && dup == 0 ? 0 : 1;
    }
}
