package dev.agentswarm.app.cli;

import com.typesafe.config.Config;
import dev.agentswarm.app.BatchRunner;
import dev.agentswarm.app.EpisodeRuns;
import dev.agentswarm.app.SwarmNode;
import dev.agentswarm.core.format.ToolCallFormats;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.workers.EmbeddedPolicy;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.tool.ToolRegistry;
import dev.agentswarm.testkit.RunRecorder;
import dev.agentswarm.testkit.Trajectories;
import dev.agentswarm.workers.EpisodeServices;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "run", mixinStandardHelpOptions = true,
        description = {"Run one agent episode on TASK with the calculator (and finish) tools.",
                "The policy is the embedded model (--policy embedded), an OpenAI-compatible server (--endpoint/--model)",
                "or a scripted policy (--script)."})
public final class RunCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "TASK", description = "What the agent should do, e.g. \"What is (17 + 4) * 3 ^ 2?\"")
    String task;

    @Mixin
    PolicyOptions policyOptions;

    @Mixin
    JsonOption json;

    @Option(names = "--config", paramLabel = "FILE", description = "HOCON file overriding the defaults (agentswarm.episode…, agentswarm.policy…).")
    Path config;

    @Option(names = "--format", description = "Tool-call format: hermes, react, openai or json-plan (default: from config, hermes).")
    String format;

    @Option(names = "--max-turns", description = "Policy turns before giving up (default: from config, 16).")
    Integer maxTurns;

    @Option(names = "--tools", split = ",", defaultValue = "calculator,finish",
            description = "Tools the episode may call, from those this node offers: calculator, finish, python, code_interpreter, bash"
                    + " (the last three run in the sandbox; default ${DEFAULT-VALUE}).")
    List<String> tools;

    @Option(names = "--record", paramLabel = "FILE", description = "Record every policy answer and tool result to this JSONL file for `swarm replay`.")
    Path record;

    @Override
    public Integer call() throws Exception {
        Config cfg = SwarmNode.loadConfig(config);
        EpisodeSpec spec = EpisodeSpec.fromConfig(cfg.getConfig("agentswarm.episode")).withTools(tools);
        if (format != null) spec = spec.withFormat(ToolCallFormats.byName(format).name());
        if (maxTurns != null) {
            spec = spec.withLimits(maxTurns, spec.tokenBudget(), spec.contextBudget(), spec.deadlineMillis(), spec.toolTimeoutMillis());
        }
        boolean embedded = policyOptions.embedded();
        if (embedded) cfg = policyOptions.embeddedConfig(cfg);
        Policy given = embedded ? null : policyOptions.create(cfg);
        ToolRegistry nodeTools = EpisodeRuns.nodeTools(cfg);
        nodeTools.select(spec.tools()); // an unknown --tools name is bad input: say so before starting a node
        Task t = Task.of("task-1", task);
        BatchRunner.Job job = new BatchRunner.Job("run-1", "run-1", t, spec);

        RunRecorder recorder = record == null ? null : new RunRecorder(record);
        try {
            if (recorder != null) {
                nodeTools = recorder.wrap(nodeTools);
                recorder.episode(job.episodeId(), job.groupId(), t, spec);
            }
            ToolRegistry episodeTools = nodeTools;
            Config nodeConfig = cfg;
            Trajectory result;
            try (SwarmNode node = SwarmNode.start(cfg, system -> {
                Policy policy = embedded ? EmbeddedPolicy.spawn(system, nodeConfig) : given;
                return new EpisodeServices(recorder == null ? policy : recorder.wrap(policy), episodeTools);
            }, null)) {
                result = EpisodeRuns.runAll(node, List.of(job), 1, x -> {}).get(0);
            }
            if (recorder != null) recorder.trajectory(result);
            Report r = new Report().line(Trajectories.render(result));
            r.line("stop: " + result.stopReason() + (result.finalAnswer() == null ? "" : "   answer: " + result.finalAnswer()));
            r.line("turns " + result.stats().turns() + ", tool calls " + result.stats().toolCalls() + " (" + result.stats().toolSuccesses()
                    + " ok), format errors " + result.stats().formatErrors() + ", " + result.stats().wallNanos() / 1_000_000 + " ms");
            if (record != null) r.line("recorded to " + record + " (replay with: swarm replay " + record + ")");
            r.put("episode_id", result.episodeId()).put("stop_reason", result.stopReason().name())
                    .put("final_answer", result.finalAnswer()).put("error", result.error())
                    .put("turns", result.stats().turns()).put("tool_calls", result.stats().toolCalls())
                    .put("tool_successes", result.stats().toolSuccesses()).put("format_errors", result.stats().formatErrors())
                    .put("prompt_tokens", result.stats().promptTokens()).put("completion_tokens", result.stats().completionTokens())
                    .put("wall_ms", Report.round(result.stats().wallNanos() / 1e6, 2));
            r.print(json.json);
            return result.stopReason().completed() ? 0 : 1;
        } finally {
            if (recorder != null) recorder.close();
        }
    }
}
