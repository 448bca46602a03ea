package dev.agentswarm.app.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.app.TrajectoryExport;
import dev.agentswarm.core.protocol.Trajectory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "export", mixinStandardHelpOptions = true,
        description = {"Writes a run's trajectories for Python trainers: messages (Hugging Face chat records of answered episodes,"
                + " for SFT; with --min-reward and --per-task, rejection-sampling fine-tuning's data for swarm sft) or trl-dpo (TRL's conversational prompt/chosen/rejected, the best and worst first answers of each group)."})
public final class ExportCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "RUN_DIR|FILE", description = "A run folder (its trajectories.jsonl) or a trajectories file.")
    Path source;

    @Option(names = "--format", required = true, description = "messages or trl-dpo.")
    String format;

    @Option(names = "--out", paramLabel = "FILE", description = "Where to write (default: <run>/export-<format>.jsonl).")
    Path out;

    @Option(names = "--min-reward", defaultValue = "-Infinity",
            description = "messages: only episodes with at least this reward (default: every answered, scored one).")
    double minReward;

    @Option(names = "--per-task", defaultValue = "2147483647", paramLabel = "N",
            description = "messages: at most N episodes of each task, so easy tasks do not crowd out the rest (rejection-sampling"
                    + " fine-tuning's cap; default: no cap).")
    int perTask;

    @Option(names = "--min-gap", defaultValue = "0.1", description = "trl-dpo: least reward gap between chosen and rejected (default ${DEFAULT-VALUE}).")
    double minGap;

    @Mixin
    JsonOption json;

    @Override
    public Integer call() throws Exception {
        Path file = Files.isDirectory(source) ? source.resolve("trajectories.jsonl") : source;
        if (!Files.isRegularFile(file)) throw new IllegalArgumentException(file + " does not exist");
        String kind = format.toLowerCase(Locale.ROOT);
        if (!kind.equals("messages") && !kind.equals("trl-dpo")) {
            throw new IllegalArgumentException("--format takes messages or trl-dpo, got \"" + format + "\"");
        }
        List<Trajectory> trajectories = TrajectoryExport.read(file);
        List<ObjectNode> records = switch (kind) {
            case "messages" -> TrajectoryExport.messages(trajectories, minReward, perTask);
            case "trl-dpo" -> TrajectoryExport.preferences(trajectories, minGap);
            default -> throw new IllegalStateException(kind);
        };
        Path target = out != null ? out : file.toAbsolutePath().getParent().resolve("export-" + kind + ".jsonl");
        TrajectoryExport.write(records, target);
        Report r = new Report().line(records.size() + " " + kind + " records from " + trajectories.size() + " trajectories → " + target);
        r.put("format", kind).put("trajectories", trajectories.size()).put("records", records.size()).put("out", target.toString());
        r.print(json.json);
        return 0;
    }
}
