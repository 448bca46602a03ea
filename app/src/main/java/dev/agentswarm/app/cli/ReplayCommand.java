package dev.agentswarm.app.cli;

import dev.agentswarm.app.Replays;
import dev.agentswarm.app.SwarmNode;
import dev.agentswarm.testkit.RunRecording;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "replay", mixinStandardHelpOptions = true,
        description = {"Replay a run recorded with --record: every episode runs again against the recorded policy",
                "answers and tool results, and its trajectory is compared with the recorded one."})
public final class ReplayCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "FILE", description = "A recording (JSONL) written by `swarm run --record`.")
    Path file;

    @Option(names = "--max-inflight", description = "Episodes replayed at once (default ${DEFAULT-VALUE}).", defaultValue = "256")
    int maxInflight;

    @Mixin
    JsonOption json;

    @Override
    public Integer call() throws Exception {
        RunRecording recording = RunRecording.load(file);
        Replays.Outcome o = Replays.replay(recording, SwarmNode.loadConfig(null), maxInflight);
        Report r = new Report();
        int n = o.replayed().size();
        r.line("replayed " + n + " episode(s) from " + file + " in " + o.wallNanos() / 1_000_000 + " ms");
        if (o.mismatches().isEmpty()) {
            r.line("every trajectory matches the recording exactly (timings aside)");
        } else {
            r.line(o.mismatches().size() + " trajectory(ies) differ from the recording:");
            o.mismatches().forEach(m -> r.line("  " + m));
        }
        r.put("episodes", n).put("matched", n - o.mismatches().size()).put("mismatched", o.mismatches().size())
                .put("wall_ms", Report.round(o.wallNanos() / 1e6, 2));
        r.print(json.json);
        return o.mismatches().isEmpty() ? 0 : 1;
    }
}
