package dev.agentswarm.app.cli;

import com.typesafe.config.Config;
import dev.agentswarm.app.Evaluation;
import dev.agentswarm.app.EpisodeRuns;
import dev.agentswarm.app.RunDirs;
import dev.agentswarm.app.SwarmNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.environments.tau2.Tau2Suite;
import dev.agentswarm.policy.openai.OpenAiCompatiblePolicy;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.environments.Noise;
import dev.agentswarm.environments.OraclePolicy;
import dev.agentswarm.environments.Split;
import dev.agentswarm.environments.Suite;
import dev.agentswarm.environments.SuiteCatalog;
import dev.agentswarm.environments.eval.EvalReport;
import dev.agentswarm.workers.EmbeddedPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "eval", mixinStandardHelpOptions = true,
        description = {"Run a suite's tasks through the episode loop and print the seeds' evaluation tables:",
                "every reward component by task category, pass@k and pass^k over --samples per task, tool success.",
                "Writes trajectories.jsonl, eval.md and eval.json to the run folder.",
                "  swarm eval --suite arithmetic --policy oracle",
                "  swarm eval --suite plugins --split heldout --endpoint http://127.0.0.1:8000/v1 --model qwen3-8b --samples 4"})
public final class EvalCommand implements Callable<Integer> {

    @Option(names = "--suite", required = true, description = "Suite to evaluate: ${COMPLETION-CANDIDATES}.",
            completionCandidates = SuiteNames.class)
    String suite;

    @Option(names = "--split", defaultValue = "heldout", description = "train or heldout (default ${DEFAULT-VALUE}).")
    String split;

    @Option(names = "--tasks", defaultValue = "50", description = "Tasks to draw from the split (default ${DEFAULT-VALUE}).")
    int tasks;

    @Option(names = "--samples", defaultValue = "1", description = "Episodes per task, for pass@k and pass^k (default ${DEFAULT-VALUE}).")
    int samples;

    @Option(names = "--inflight", defaultValue = "64", description = "Episodes running at once (default ${DEFAULT-VALUE}).")
    int inflight;

    @Option(names = "--noise", description = "Oracle policy: add the configured noise (agentswarm.environments.noise).")
    boolean noise;

    @Option(names = "--demonstrations", paramLabel = "FILE",
            description = "Also write every passing episode's transcript as Hugging Face messages JSONL (for swarm sft).")
    Path demonstrations;

    @Option(names = "--out", paramLabel = "DIR", description = "Run folder (default runs/eval-<suite>-<time>).")
    Path out;

    @Option(names = "--config", paramLabel = "FILE", description = "HOCON file overriding the defaults.")
    Path config;

    @Mixin
    PolicyOptions policyOptions;

    @Option(names = "--user-endpoint", paramLabel = "URL",
            description = "τ² suites: an OpenAI-compatible server whose --user-model plays the customer (τ²'s user simulator);"
                    + " without it the user is scripted.")
    String userEndpoint;

    @Option(names = "--user-model", paramLabel = "NAME", description = "The model --user-endpoint serves.")
    String userModel;

    @Option(names = "--judge-endpoint", paramLabel = "URL",
            description = "τ² suites: an OpenAI-compatible server whose --judge-model grades natural-language assertions;"
                    + " without it the tasks they gate are reported as judge_needed.")
    String judgeEndpoint;

    @Option(names = "--judge-model", paramLabel = "NAME", description = "The model --judge-endpoint serves.")
    String judgeModel;

    @Mixin
    JoinOption joinOption;

    @Mixin
    JsonOption json;

    /** Suite names for the help text. */
    static final class SuiteNames extends ArrayList<String> {
        SuiteNames() {
            super(SuiteCatalog.known());
        }
    }

    /** A τ² suite with the models that play its user and judge its assertions, when given. */
    private Suite withModels(Suite s) {
        Policy user = model("--user", userEndpoint, userModel);
        Policy judge = model("--judge", judgeEndpoint, judgeModel);
        if (user == null && judge == null) return s;
        if (!(s instanceof Tau2Suite tau2)) throw new IllegalArgumentException("--user-endpoint and --judge-endpoint apply to the τ² suites only");
        if (joinOption.address() != null) {
            throw new IllegalArgumentException("with --join the worker nodes play the user and judge: set agentswarm.environments."
                    + s.name() + ".user and .judge (endpoint, model) in their configuration instead of --user-endpoint/--judge-endpoint");
        }
        return tau2.withModels(user, judge);
    }

    private static Policy model(String option, String endpoint, String model) {
        if (endpoint == null && model == null) return null;
        if (endpoint == null || model == null || model.isBlank()) {
            throw new IllegalArgumentException(option + "-endpoint and " + option + "-model go together");
        }
        return OpenAiCompatiblePolicy.connect(java.net.URI.create(endpoint), model);
    }

    @Override
    public Integer call() throws Exception {
        if (tasks < 1 || samples < 1 || inflight < 1) throw new IllegalArgumentException("--tasks, --samples and --inflight must be >= 1");
        Config cfg = SwarmNode.loadConfig(config);
        Suite s = withModels(SuiteCatalog.one(cfg, suite, OpenAiCompatiblePolicy::connect));
        Split which = Split.parse(split);
        List<Task> drawn = s.tasks(which, tasks);
        if (drawn.isEmpty()) throw new IllegalArgumentException("suite " + suite + " has no " + which.label() + " tasks");
        EpisodeSpec spec = s.spec(EpisodeSpec.fromConfig(cfg.getConfig("agentswarm.episode")));
        boolean embedded = policyOptions.embedded();
        if (embedded) cfg = policyOptions.embeddedConfig(cfg);
        Noise oracleNoise = noise ? Noise.fromConfig(cfg.getConfig(SuiteCatalog.CONFIG_PATH + ".noise")) : Noise.NONE;
        org.apache.pekko.actor.Address join = joinOption.address();
        if (join != null && (policyOptions.kind != null || policyOptions.script != null || policyOptions.endpoint != null)) {
            throw new IllegalArgumentException("with --join the cluster's worker nodes bring the policy: give no --policy, --script or --endpoint");
        }
        Policy given = join != null ? null : policyOptions.oracle() ? new OraclePolicy(s, spec.format(), Evaluation.taskOfEpisode(drawn), oracleNoise) : embedded ? null : policyOptions.create(cfg);
        String policyName = join != null ? "the workers' of " + join : given != null ? given.describe() : "embedded";

        Path dir = out != null ? out : RunDirs.timestamped("eval-" + suite); // a folder of its own, even for a run started in the same second
        Files.createDirectories(dir);
        Config nodeConfig = cfg;
        Evaluation.Result result = Evaluation.run(cfg, s, which, drawn, samples, inflight,
                system -> given != null ? given : EmbeddedPolicy.spawn(system, nodeConfig), policyName, dir.resolve("trajectories.jsonl"),
                join);
        double seconds = result.seconds();
        List<EvalReport.Episode> episodes = result.episodes();
        EvalReport report = result.report();
        int runs = episodes.size();
        int demos = demonstrations == null ? 0 : result.writeDemonstrations(demonstrations);
        String markdown = report.toMarkdown();
        Files.writeString(dir.resolve("eval.md"), markdown);
        Map<String, Object> figures = new LinkedHashMap<>(report.toMap());
        figures.put("wall_s", Report.round(seconds, 2));
        figures.put("episodes_per_s", Report.round(runs / seconds, 1));
        figures.put("run_dir", dir.toString());
        Files.writeString(dir.resolve("eval.json"), Json.write(figures));

        Report r = new Report();
        for (String line : markdown.split("\n")) r.line(line);
        r.line(String.format("%d episodes in %.1f s (%.0f episodes/s, node start included)", runs, seconds,
                runs / seconds));
        r.line("written to " + dir + " (trajectories.jsonl, eval.md, eval.json)");
        if (demonstrations != null) {
            r.line(demos + " demonstrations (passing episodes) written to " + demonstrations);
            figures.put("demonstrations", demos);
        }
        figures.forEach(r::put);
        r.print(json.json);
        return 0;
    }
}
