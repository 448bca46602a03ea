package dev.agentswarm.app.cli;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import dev.agentswarm.app.SwarmNode;
import dev.agentswarm.app.Training;
import dev.agentswarm.orchestrator.RolloutCoordinator;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "train", mixinStandardHelpOptions = true,
        description = {"GRPO on the embedded model: episodes of a suite's train split run on the node's workers while the learner"
                + " trains on complete groups and publishes each update's weights to the policy server (asynchronous unless --sync).",
                "Settings: agentswarm.train, agentswarm.learner.grpo, agentswarm.policy.embedded. Writes trajectories.jsonl and"
                + " metrics.jsonl to the run folder.",
                "With --join the run uses a cluster's worker nodes and its learner singleton (swarm node --roles learner), which reads"
                + " and checkpoints the run folder: put it on storage every learner node reads at the same path (--run-dir)."})
public final class TrainCommand implements Callable<Integer> {

    @Option(names = "--config", paramLabel = "FILE", description = "HOCON file overriding the defaults.")
    Path config;

    @Option(names = "--suite", description = "The suite to train on (default: agentswarm.train.suite, arithmetic).")
    String suite;

    @Option(names = "--steps", description = "Learner updates (default: agentswarm.train.steps).")
    Integer steps;

    @Option(names = "--sync", description = "Sample, then train, in turn: the synchronous baseline.")
    boolean sync;

    @Option(names = "--swarm", description = "Train the orchestrator (PARL): each episode is a swarm on the task (agentswarm.swarm), the"
            + " learner gets the root orchestrator's trajectory with the PARL reward (agentswarm.swarm.parl).")
    boolean swarm;

    @Mixin
    WeightsOptions weights;

    @Mixin
    LoraOptions lora;

    @Option(names = "--run-dir", paramLabel = "DIR", description = "Where the run's files go (default: runs/train-<suite>-<time>).")
    Path runDir;

    @Option(names = "--resume", paramLabel = "RUN_DIR",
            description = "Continue a run from its latest checkpoint, with the configuration the run saved (train.conf); only --steps,"
                    + " the total to reach, is taken from this command.")
    Path resume;

    @Mixin
    JoinOption joinOption;

    @Mixin
    MetricsOptions metrics;

    @Mixin
    JsonOption json;

    @Override
    public Integer call() throws Exception {
        Config cfg = metrics.apply(SwarmNode.loadConfig(config));
        if (suite != null) cfg = cfg.withValue("agentswarm.train.suite", ConfigValueFactory.fromAnyRef(suite));
        if (steps != null) cfg = cfg.withValue("agentswarm.train.steps", ConfigValueFactory.fromAnyRef(steps));
        if (sync) cfg = cfg.withValue("agentswarm.train.sync", ConfigValueFactory.fromAnyRef(true));
        if (swarm) cfg = cfg.withValue("agentswarm.train.swarm", ConfigValueFactory.fromAnyRef(true));
        if (runDir != null) cfg = cfg.withValue("agentswarm.train.run-dir", ConfigValueFactory.fromAnyRef(runDir.toString()));
        cfg = lora.apply(weights.apply(cfg));
        Training.Outcome o = Training.run(cfg, resume, joinOption.address());
        RolloutCoordinator.Summary s = o.summary();
        Report r = new Report();
        r.line(String.format("%d learner steps, policy version %d, from %d episodes in %.1f s (%.2f episodes/s); %d stale groups dropped, %d episodes re-sent",
                s.steps(), s.version(), s.episodes(), s.wallSeconds(), s.episodes() / Math.max(1e-9, s.wallSeconds()), s.staleDropped(),
                s.resent()));
        Map<String, Double> first = s.first();
        Map<String, Double> last = s.last();
        if (!last.isEmpty()) {
            r.line(String.format("reward %.3f (step %d) → %.3f (step %d); last loss %.4f, grad norm %.3f, learner %.0f tokens/s",
                    first.getOrDefault("reward_mean", Double.NaN), s.firstStep(), last.getOrDefault("reward_mean", Double.NaN), s.steps(),
                    last.getOrDefault("loss", Double.NaN), last.getOrDefault("grad_norm", Double.NaN),
                    last.getOrDefault("tokens_per_s", Double.NaN)));
        }
        r.line("written to " + o.runDir() + " (trajectories.jsonl, metrics.jsonl, checkpoints/; go on with --resume " + o.runDir() + ")");
        if (s.retrained() > 0) r.line(s.retrained() + " batches trained again: the learner moved and came back from its latest checkpoint");
        if (s.infraRetried() > 0 || s.groupsDroppedInfra() > 0) {
            r.line(s.infraRetried() + " episodes run again and " + s.groupsDroppedInfra() + " groups dropped as they failed for their"
                    + " infrastructure, not the policy (never trained on; by cause in metrics.jsonl)");
        }
        if (s.error() != null) r.line("stopped early: " + s.error());
        r.put("steps", s.steps()).put("version", s.version()).put("episodes", s.episodes()).put("stale_dropped", s.staleDropped())
                .put("resent", s.resent()).put("retrained", s.retrained()).put("infra_retried", s.infraRetried())
                .put("groups_dropped_infra", s.groupsDroppedInfra()).put("wall_s", Report.round(s.wallSeconds(), 2))
                .put("episodes_per_s", Report.round(s.episodes() / Math.max(1e-9, s.wallSeconds()), 2))
                .put("reward_first", first.get("reward_mean")).put("reward_last", last.get("reward_mean"))
                .put("run_dir", o.runDir().toString()).put("error", s.error());
        r.print(json.json);
        return s.error() == null ? 0 : 1;
    }
}
