package dev.agentswarm.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import dev.agentswarm.app.cli.Report;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.environments.JsonRecords;
import dev.agentswarm.environments.Noise;
import dev.agentswarm.environments.OraclePolicy;
import dev.agentswarm.environments.Split;
import dev.agentswarm.environments.Suite;
import dev.agentswarm.environments.SuiteCatalog;
import dev.agentswarm.environments.eval.Discipline;
import dev.agentswarm.environments.eval.EvalReport;
import dev.agentswarm.learner.rl.DpoTrainer;
import dev.agentswarm.learner.rl.PreferencePair;
import dev.agentswarm.learner.rl.PreferencePairs;
import dev.agentswarm.learner.rl.TurnPrompts;
import dev.agentswarm.learner.sft.Checkpoints;
import dev.agentswarm.learner.sft.SftConfig;
import dev.agentswarm.learner.sft.SftTrainer;
import dev.agentswarm.policy.embedded.EmbeddedModel;
import dev.agentswarm.workers.EmbeddedPolicy;
import dev.agentswarm.policy.openai.OpenAiCompatiblePolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import me.tongfei.progressbar.ProgressBar;

/**
 * The seeds' results in miniature, end to end on one node: noisy oracle demonstrations of a suite,
 * SFT of the embedded model on them, then two continuations from the same SFT weights, each
 * compared with SFT alone on held-out tasks —
 * <ol>
 *   <li>{@code grpo-tcr} (seed 002): GRPO with the suite's reward and its tool-call bonus, through
 *       the training loop ({@link Training}; {@code sync} as the configuration says);</li>
 *   <li>{@code dpo-discipline} (seed 001): DPO on pairs from the SFT policy's own rollouts, the
 *       chosen one without filler and in format, the rejected one chatty or malformed.</li>
 * </ol>
 * Every stage writes its files under the run folder; the figures come from {@link EvalReport}.
 */
public final class Demo {

    /** The {@code agentswarm.demo} block. */
    public record Settings(String suite, int demonstrations, int heldoutTasks, int inflight, int dpoTasks, int dpoSamples,
                           double dpoMinGap, double fillerPenalty, double formatPenalty) {

        public static final String PATH = "agentswarm.demo";

        public Settings {
            if (demonstrations < 1 || heldoutTasks < 1 || inflight < 1 || dpoTasks < 1 || dpoSamples < 2) {
                throw new IllegalArgumentException(PATH + ": demonstrations, heldout-tasks, inflight and dpo.tasks must be >= 1"
                        + " and dpo.samples >= 2");
            }
        }

        static Settings fromConfig(Config root) {
            Config c = root.getConfig(PATH);
            Config d = c.getConfig("dpo");
            return new Settings(c.getString("suite"), c.getInt("demonstrations"), c.getInt("heldout-tasks"), c.getInt("inflight"),
                    d.getInt("tasks"), d.getInt("samples"), d.getDouble("min-gap"), d.getDouble("filler-penalty"),
                    d.getDouble("format-penalty"));
        }
    }

    /** A story: its held-out evaluation after SFT and after the RL stage, and how the RL stage went. */
    public record Story(String name, String seed, String suite, EvalReport sft, EvalReport rl, Map<String, Object> training) {}

    /** What a demo run produced. */
    public record Outcome(Path runDir, double seconds, List<Story> stories, Map<String, Object> sft, Path report, List<Path> charts) {}

    private final Config cfg;
    private final Settings settings;
    private final Path runDir;
    private final Consumer<String> log;
    private final Suite suite;
    private final long started = System.nanoTime();

    public Demo(Config cfg, Path runDir, Consumer<String> log) {
        this.cfg = cfg;
        this.settings = Settings.fromConfig(cfg);
        this.runDir = runDir;
        this.log = log;
        this.suite = SuiteCatalog.one(cfg, settings.suite(), OpenAiCompatiblePolicy::connect);
    }

    public Outcome run() throws Exception {
        Files.createDirectories(runDir);
        stage(1, "noisy oracle demonstrations on the train split");
        Path demos = demonstrations();
        stage(2, "SFT of the embedded model on them");
        Map<String, Object> sft = new LinkedHashMap<>();
        Config sftPolicy = sft(demos, sft);
        stage(3, "held-out evaluation after SFT");
        EvalReport sftEval = evaluate(sftPolicy, "sft");
        stage(4, "GRPO from the SFT weights (seed 002: the suite's reward with the tool-call bonus)");
        Map<String, Object> grpoRun = new LinkedHashMap<>();
        Config grpoPolicy = grpo(sftPolicy, grpoRun);
        stage(5, "held-out evaluation after GRPO");
        EvalReport grpoEval = evaluate(grpoPolicy, "grpo");
        stage(6, "DPO from the SFT weights (seed 001: pairs from its own rollouts, filler and bad format rejected)");
        Map<String, Object> dpoRun = new LinkedHashMap<>();
        Config dpoPolicy = dpo(sftPolicy, dpoRun);
        stage(7, "held-out evaluation after DPO");
        EvalReport dpoEval = evaluate(dpoPolicy, "dpo");

        List<Story> stories = List.of(
                new Story("grpo-tcr", "002", suite.name(), sftEval, grpoEval, grpoRun),
                new Story("dpo-discipline", "001", suite.name(), sftEval, dpoEval, dpoRun));
        double seconds = (System.nanoTime() - started) / 1e9;
        List<Path> charts = charts();
        Path report = runDir.resolve("report.md");
        Files.writeString(report, DemoReport.markdown(stories, sft, seconds, charts, runDir));
        return new Outcome(runDir, seconds, stories, sft, report, charts);
    }

    private void stage(int n, String what) {
        log.accept(String.format("[%d/7 %s] %s", n, clock(), what));
    }

    private String clock() {
        long s = (System.nanoTime() - started) / 1_000_000_000L;
        return String.format("%d:%02d", s / 60, s % 60);
    }

    /** The suite's oracle, with the configured noise, on the train split; passing transcripts become SFT data. */
    private Path demonstrations() throws Exception {
        List<Task> tasks = suite.tasks(Split.TRAIN, settings.demonstrations());
        EpisodeSpec spec = suite.spec(EpisodeSpec.fromConfig(cfg.getConfig("agentswarm.episode")));
        Noise noise = Noise.fromConfig(cfg.getConfig(SuiteCatalog.CONFIG_PATH + ".noise"));
        OraclePolicy oracle = new OraclePolicy(suite, spec.format(), Evaluation.taskOfEpisode(tasks), noise);
        Evaluation.Result r = Evaluation.run(cfg, suite, Split.TRAIN, tasks, 1, settings.inflight(), system -> oracle, oracle.describe(),
                runDir.resolve("oracle-trajectories.jsonl"));
        Path out = runDir.resolve("demonstrations.jsonl");
        int written = r.writeDemonstrations(out);
        log.accept(String.format("  %d demonstrations (%.0f%% with filler, noise %s) in %.1f s → %s", written,
                100.0 * r.report().facts().get("filler_rate"), noise, r.seconds(), out));
        return out;
    }

    /** Trains the SFT stage; returns the configuration whose embedded policy serves its weights. */
    private Config sft(Path demos, Map<String, Object> figures) throws IOException {
        Path dir = runDir.resolve("sft");
        Config c = cfg.withValue(SftConfig.PATH + ".data", ConfigValueFactory.fromAnyRef(demos.toString()))
                .withValue(SftConfig.PATH + ".run-dir", ConfigValueFactory.fromAnyRef(dir.toString()));
        SftConfig sc = SftConfig.fromConfig(c);
        SftTrainer.Summary s;
        try (SftTrainer trainer = SftTrainer.start(sc, line -> log.accept("  " + line));
             ProgressBar bar = EpisodeRuns.progressBar("sft", trainer.totalSteps())) {
            s = trainer.train(new SftTrainer.Listener() {
                @Override
                public void onStep(SftTrainer.StepResult r) {
                    bar.stepTo(r.step());
                    bar.setExtraMessage(String.format(" loss %.3f", r.loss()));
                }
            });
        }
        figures.put("steps", s.lastStep());
        figures.put("first_loss", Report.round(s.firstLoss(), 4));
        figures.put("final_loss", Report.round(s.lastLoss(), 4));
        figures.put("tokens_per_s", Report.round(s.tokensPerSecond(), 0));
        figures.put("train_s", Report.round(s.trainSeconds(), 1));
        log.accept(String.format("  %d steps, loss %.3f → %.3f, %.0f tokens/s, %.0f s", s.lastStep(), s.firstLoss(), s.lastLoss(),
                s.tokensPerSecond(), s.trainSeconds()));
        return servingWeights(cfg, s.lastCheckpoint().resolve(Checkpoints.MODEL))
                .withValue(EmbeddedModel.CONFIG_PATH + ".tokenizer", ConfigValueFactory.fromAnyRef(dir.resolve(SftTrainer.TOKENIZER_FILE).toString()));
    }

    private static Config servingWeights(Config c, Path weights) {
        return c.withValue(EmbeddedModel.CONFIG_PATH + ".weights", ConfigValueFactory.fromAnyRef(weights.toString()));
    }

    /** The held-out evaluation of the policy {@code policy} serves, written to {@code eval-<name>/}. */
    private EvalReport evaluate(Config policy, String name) throws Exception {
        Path dir = runDir.resolve("eval-" + name);
        Files.createDirectories(dir);
        Evaluation.Result r = Evaluation.run(policy, suite, Split.HELDOUT, suite.tasks(Split.HELDOUT, settings.heldoutTasks()), 1,
                settings.inflight(), system -> EmbeddedPolicy.spawn(system, policy), name, dir.resolve("trajectories.jsonl"));
        Files.writeString(dir.resolve("eval.md"), r.report().toMarkdown());
        Files.writeString(dir.resolve("eval.json"), Json.write(r.report().toMap()));
        Map<String, Double> m = r.report().means();
        Map<String, Double> f = r.report().facts();
        log.accept(String.format("  %s: pass %.3f, tool success %.3f, filler %.3f, valid format %.3f, %.1f tokens per answer (%.1f s)",
                name, m.getOrDefault("pass", 0.0), f.get("tool_success_rate"), f.get("filler_rate"), f.get("valid_format_rate"),
                f.get("tokens_per_answer"), r.seconds()));
        return r.report();
    }

    /** The GRPO run from the SFT weights; returns the configuration serving its last update. */
    private Config grpo(Config sftPolicy, Map<String, Object> figures) throws Exception {
        Path dir = runDir.resolve("grpo");
        Config c = sftPolicy.withValue("agentswarm.train.run-dir", ConfigValueFactory.fromAnyRef(dir.toString()))
                .withValue("agentswarm.train.suite", ConfigValueFactory.fromAnyRef(suite.name()));
        Training.Outcome o = Training.run(c);
        var s = o.summary();
        if (s.error() != null) throw new IllegalStateException("the GRPO run failed: " + s.error());
        figures.put("algorithm", "grpo");
        figures.put("steps", s.steps());
        figures.put("episodes", s.episodes());
        figures.put("stale_dropped", s.staleDropped());
        figures.put("wall_s", Report.round(s.wallSeconds(), 1));
        figures.put("first_reward", meanReward(s.first()));
        figures.put("last_reward", meanReward(s.last()));
        log.accept(String.format("  %d updates, %d episodes (%d stale dropped) in %.0f s; batch reward %.3f → %.3f", s.steps(),
                s.episodes(), s.staleDropped(), s.wallSeconds(), s.first().getOrDefault("reward_mean", Double.NaN),
                s.last().getOrDefault("reward_mean", Double.NaN)));
        Path last = Checkpoints.latest(dir).orElseThrow(() -> new IllegalStateException("the GRPO run saved no checkpoint in " + dir));
        return servingWeights(sftPolicy, last.resolve(Checkpoints.MODEL));
    }

    /**
     * DPO from the SFT weights: the SFT policy's rollouts of train tasks, grouped by task; in each
     * group the best and the worst by reward less the filler and format penalties make a pair.
     */
    private Config dpo(Config sftPolicy, Map<String, Object> figures) throws Exception {
        Path dir = runDir.resolve("dpo");
        Files.createDirectories(dir);
        Evaluation.Result rollouts = Evaluation.run(sftPolicy, suite, Split.TRAIN, suite.tasks(Split.TRAIN, settings.dpoTasks()),
                settings.dpoSamples(), settings.inflight(), system -> EmbeddedPolicy.spawn(system, sftPolicy), "sft",
                dir.resolve("rollouts.jsonl"));
        Map<String, List<Trajectory>> groups = new LinkedHashMap<>();
        for (EvalReport.Episode e : rollouts.episodes()) groups.computeIfAbsent(e.task().id(), k -> new ArrayList<>()).add(e.trajectory());
        DpoTrainer.Settings ds = DpoTrainer.Settings.fromConfig(cfg);
        DpoRun.Outcome run;
        try (EmbeddedModel model = EmbeddedModel.fromConfig(sftPolicy)) {
            List<PreferencePair> pairs = PreferencePairs.fromRollouts(new ArrayList<>(groups.values()), settings.dpoMinGap(),
                    new TurnPrompts(model.template()),
                    t -> Discipline.score(t, settings.fillerPenalty(), settings.formatPenalty()));
            log.accept(String.format("  %d rollouts of %d tasks (%.1f s, filler %.3f) → %d preference pairs", rollouts.episodes().size(),
                    groups.size(), rollouts.seconds(), rollouts.report().facts().get("filler_rate"), pairs.size()));
            if (pairs.isEmpty()) throw new IllegalStateException("no rollout group had a pair " + settings.dpoMinGap() + " apart; nothing to prefer");
            run = DpoRun.train(model, pairs, ds, dir);
            figures.put("algorithm", "dpo");
            figures.put("pairs", pairs.size());
        }
        figures.put("steps", run.steps().size());
        figures.put("first_loss", Report.round(run.first().loss(), 4));
        figures.put("last_loss", Report.round(run.last().loss(), 4));
        figures.put("last_accuracy", Report.round(run.last().accuracy(), 3));
        figures.put("train_s", Report.round(run.trainSeconds(), 1));
        log.accept(String.format("  %d steps, loss %.3f → %.3f, pair accuracy %.2f → %.2f, %.0f s", run.steps().size(), run.first().loss(),
                run.last().loss(), run.first().accuracy(), run.last().accuracy(), run.trainSeconds()));
        Path weights = run.weights();
        return servingWeights(sftPolicy, weights);
    }

    /** The GRPO reward curve and the DPO loss curve, from the runs' metrics files. */
    private List<Path> charts() throws IOException {
        List<Path> out = new ArrayList<>();
        List<JsonNode> grpo = metrics(runDir.resolve("grpo"));
        List<Charts.Series> rewardSeries = List.of(
                series("mean reward", grpo, "reward_mean"), series("pass rate", grpo, "reward_pass"),
                series("tool success rate", grpo, "tool_success_rate"));
        Path reward = runDir.resolve("reward-curve.png");
        if (Charts.line(reward, "GRPO on " + suite.name() + ": training batches", "update", "per episode", rewardSeries)) out.add(reward);
        List<JsonNode> dpo = metrics(runDir.resolve("dpo"));
        Path loss = runDir.resolve("dpo-curve.png");
        if (Charts.line(loss, "DPO: loss and pair accuracy", "step", "", List.of(series("loss", dpo, "loss"),
                series("pair accuracy", dpo, "accuracy")))) out.add(loss);
        return out;
    }

    /** The published updates' values of {@code field} by step. */
    private static Charts.Series series(String name, List<JsonNode> lines, String field) {
        List<double[]> points = new ArrayList<>();
        for (JsonNode l : lines) {
            if (l.has("published") && !l.get("published").asBoolean()) continue;
            if (l.hasNonNull(field) && l.hasNonNull("step")) points.add(new double[] {l.get("step").asDouble(), l.get(field).asDouble()});
        }
        double[] x = new double[points.size()];
        double[] y = new double[points.size()];
        for (int i = 0; i < x.length; i++) {
            x[i] = points.get(i)[0];
            y[i] = points.get(i)[1];
        }
        return new Charts.Series(name, x, y);
    }

    /** An update's batch reward, rounded; null when the run published none (not a made-up 0). */
    private static Double meanReward(Map<String, Double> update) {
        Double r = update.get("reward_mean");
        return r == null ? null : Report.round(r, 4);
    }

    /** A stage's metrics.jsonl, which the stage has written by now. */
    private static List<JsonNode> metrics(Path stageDir) {
        return JsonRecords.read(stageDir.resolve("metrics.jsonl"), Integer.MAX_VALUE, "metrics file", "its stage should have written it")
                .stream().map(JsonRecords.Located::node).toList();
    }
}
