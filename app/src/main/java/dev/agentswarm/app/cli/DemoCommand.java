package dev.agentswarm.app.cli;

import com.typesafe.config.Config;
import dev.agentswarm.app.BatchRunner;
import dev.agentswarm.app.Demo;
import dev.agentswarm.app.DemoReport;
import dev.agentswarm.app.DemoScript;
import dev.agentswarm.app.EpisodeRuns;
import dev.agentswarm.app.Replays;
import dev.agentswarm.app.SwarmNode;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.tool.ToolRegistry;
import dev.agentswarm.testkit.RunRecorder;
import dev.agentswarm.testkit.RunRecording;
import dev.agentswarm.testkit.Trajectories;
import dev.agentswarm.workers.EpisodeServices;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"The seeds' results in miniature on the embedded model, on one node: SFT on noisy oracle demonstrations,",
                "then GRPO with the tool-call reward (seed 002) and DPO against filler (seed 001), each compared with SFT alone",
                "on held-out tasks. Writes report.md, reward-curve.png and every stage's files to the run folder.",
                "Settings: the agentswarm.demo block and the blocks it sets (demo.conf in the jar); --config overrides them.",
                "--replay replays a recorded scripted run instead (seconds)."})
public final class DemoCommand implements Callable<Integer> {

    static final String RECORDING = "demo/calculator-demo.jsonl";

    /** The demo's own settings, between a user's --config and the node's defaults. */
    static final String CONFIG = "demo.conf";

    @Mixin
    JsonOption json;

    @Option(names = "--config", paramLabel = "FILE", description = "HOCON file overriding the demo's settings.")
    Path config;

    @Option(names = "--run-dir", paramLabel = "DIR", description = "Where the run's files go (default runs/demo-<time>).")
    Path runDir;

    @Option(names = "--replay", description = "Replay the recorded calculator run through the runtime instead of training.")
    boolean replay;

    @Option(names = "--regenerate", paramLabel = "FILE", hidden = true,
            description = "Run the demo's scripted agent live and record the run to FILE (how the shipped recording was made).")
    Path regenerate;

    @Override
    public Integer call() throws Exception {
        if (regenerate != null) return regenerate(regenerate);
        return replay ? replay() : learn();
    }

    private int learn() throws Exception {
        Config cfg = SwarmNode.loadConfig(config, com.typesafe.config.ConfigFactory.parseResources(CONFIG));
        Path dir = runDir != null ? runDir : dev.agentswarm.app.RunDirs.timestamped("demo");
        Demo.Outcome o = new Demo(cfg, dir, System.err::println).run();
        Report r = new Report();
        r.line("");
        for (Demo.Story s : o.stories()) {
            r.line(s.name() + " (seed " + s.seed() + ", " + s.suite() + ", held-out):");
            for (String line : DemoReport.table(s).split("\n")) r.line("  " + line);
            r.line("");
        }
        r.line(String.format("%.0f s; report: %s; charts: %s", o.seconds(), o.report(),
                o.charts().stream().map(Path::toString).collect(Collectors.joining(", "))));
        r.put("elapsed_s", Report.round(o.seconds(), 1)).put("run_dir", o.runDir().toString()).put("sft", o.sft())
                .put("stories", DemoReport.json(o.stories()));
        r.print(json.json);
        return 0;
    }

    private int replay() throws Exception {
        RunRecording recording = RunRecording.fromResource(RECORDING);
        Map<String, Task> tasks = recording.episodes().stream()
                .collect(Collectors.toMap(RunRecording.Episode::episodeId, RunRecording.Episode::task));
        Report r = new Report();
        r.line("agentswarm demo --replay: a REPLAY of a recorded run, the");
        r.line("policy answers and tool results recorded from a scripted policy (" + RECORDING + ")");
        r.line("through the real runtime: a one-node Pekko cluster, the worker sharding region, one actor per episode.");
        r.line("");
        Replays.Outcome o = Replays.replay(recording, SwarmNode.loadConfig(null), 64);
        int correct = 0, turns = 0, calls = 0, ok = 0, formatErrors = 0;
        for (Trajectory t : o.replayed()) {
            Task task = tasks.get(t.episodeId());
            boolean right = task.answer() != null && task.answer().equals(t.finalAnswer());
            if (right) correct++;
            turns += t.stats().turns();
            calls += t.stats().toolCalls();
            ok += t.stats().toolSuccesses();
            formatErrors += t.stats().formatErrors();
            r.line(String.format("  %s %-46s → %-22s (%d turns, %d tool calls%s)", right ? "✓" : "✗",
                    Trajectories.oneLine(task.prompt(), 46), t.finalAnswer() == null ? t.stopReason().name() : t.finalAnswer(),
                    t.stats().turns(), t.stats().toolCalls(),
                    t.stats().formatErrors() > 0 ? ", " + t.stats().formatErrors() + " format error(s) corrected" : ""));
        }
        int n = o.replayed().size();
        r.line("");
        r.line(String.format("%d/%d correct, %.1f turns per episode, %d/%d tool calls succeeded, %d format errors fed back",
                correct, n, (double) turns / n, ok, calls, formatErrors));
        r.line(o.mismatches().isEmpty() ? "replay matches the recording exactly (timings aside)"
                : o.mismatches().size() + " episode(s) differ from the recording: " + o.mismatches());
        r.put("mode", "replay").put("episodes", n).put("correct", correct).put("accuracy", Report.round((double) correct / n, 4))
                .put("mean_turns", Report.round((double) turns / n, 3)).put("tool_calls", calls).put("tool_successes", ok)
                .put("format_errors", formatErrors).put("replay_mismatches", o.mismatches().size())
                .put("wall_ms", Report.round(o.wallNanos() / 1e6, 1));
        r.print(json.json);
        return o.mismatches().isEmpty() ? 0 : 1;
    }

    /** Runs the scripted demo agent on the demo tasks through a live node, recording everything. */
    private int regenerate(Path file) throws Exception {
        Config cfg = SwarmNode.loadConfig(null);
        List<Task> tasks = DemoScript.tasks(24, 7);
        EpisodeSpec spec = EpisodeSpec.fromConfig(cfg.getConfig("agentswarm.episode")).withTools(List.of("calculator", "finish"));
        try (RunRecorder recorder = new RunRecorder(file)) {
            Policy policy = recorder.wrap(DemoScript.policy(tasks));
            ToolRegistry tools = recorder.wrap(EpisodeRuns.builtInTools());
            List<BatchRunner.Job> jobs = tasks.stream()
                    .map(t -> new BatchRunner.Job("demo-" + t.id(), "demo", t, spec)).toList();
            jobs.forEach(j -> recorder.episode(j.episodeId(), j.groupId(), j.task(), j.spec()));
            try (SwarmNode node = SwarmNode.startEmbedded(cfg, new EpisodeServices(policy, tools))) {
                EpisodeRuns.runAll(node, jobs, 64, recorder::trajectory);
            }
        }
        System.out.println("recorded " + tasks.size() + " demo episodes to " + file);
        return 0;
    }

}
