package dev.agentswarm.app.cli;

import dev.agentswarm.app.bench.SwarmBenchmark;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "swarm", mixinStandardHelpOptions = true,
        description = {"Times a whole swarm: one orchestrator spawns SUBAGENTS sub-agents in one plan, each makes TURNS calls of a",
                "tool that takes TOOL-MS, then answers. Wall time against the ideal critical path (turns × tool-ms) and against",
                "the serial sum; orchestration overhead per sub-agent; peak heap. The peers' swarm workload, same parameters."})
public final class BenchSwarmCommand implements Callable<Integer> {

    @Option(names = "--subagents", defaultValue = "100", description = "Sub-agents in the plan (default ${DEFAULT-VALUE}).")
    int subAgents;

    @Option(names = "--turns", defaultValue = "10", description = "Tool calls per sub-agent (default ${DEFAULT-VALUE}).")
    int turns;

    @Option(names = "--tool-ms", defaultValue = "10", description = "Milliseconds one tool call takes (default ${DEFAULT-VALUE}).")
    int toolMs;

    @Option(names = "--warmup", defaultValue = "10", description = "Swarms run before measuring (default ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--reps", defaultValue = "10", description = "Measured swarms; the median is reported (default ${DEFAULT-VALUE}).")
    int reps;

    @Option(names = "--async-tool", description = "The tool waits without holding a thread (an I/O tool); by default it blocks a thread"
            + " of its own pool for tool-ms, as the peers' tools do.")
    boolean asyncTool;

    @Option(names = "--no-journal", description = "Run the swarms without their journal (swarm run keeps one by default), to see what it costs.")
    boolean noJournal;

    @Option(names = "--no-trace", description = "Run without the trace (trace.jsonl's events and messages), to see what it costs.")
    boolean noTrace;

    @Mixin
    JsonOption json;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        Map<String, Object> f = SwarmBenchmark.run(new SwarmBenchmark.Settings(subAgents, turns, toolMs, warmup, reps, !asyncTool, !noTrace,
                        !noJournal),
                line -> spec.commandLine().getErr().println(line));
        Report r = new Report();
        r.line(String.format("swarm of %d sub-agents × %d tool calls of %d ms (%s tool), median of %d: %.1f ms", subAgents, turns, toolMs,
                f.get("tool"), reps, (Double) f.get("wall_ms")));
        r.line(String.format("  %.3f × the ideal critical path (%.0f ms), %.4f × the serial sum (%.0f ms)", (Double) f.get("wall_over_ideal"),
                (Double) f.get("ideal_ms"), (Double) f.get("wall_over_serial"), (Double) f.get("serial_ms")));
        r.line(String.format("  overhead %.3f ms per sub-agent, %.1f CPU ms per swarm, peak heap %d MB; critical steps %s of %s",
                (Double) f.get("overhead_ms_per_subagent"), (Double) f.get("cpu_ms_per_swarm"), (Long) f.get("peak_heap_bytes") >> 20,
                f.get("critical_steps"), f.get("total_steps")));
        f.forEach(r::put);
        r.print(json.json);
        return 0;
    }
}
