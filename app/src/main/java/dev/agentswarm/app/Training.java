package dev.agentswarm.app;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import dev.agentswarm.core.json.MetricsLog;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.LearnerProtocol;
import dev.agentswarm.core.protocol.WeightsProtocol;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.tool.ToolRegistry;
import dev.agentswarm.environments.Split;
import dev.agentswarm.environments.Suite;
import dev.agentswarm.environments.SuiteCatalog;
import dev.agentswarm.environments.Suites;
import dev.agentswarm.learner.WeightsSource;
import dev.agentswarm.learner.sft.Checkpoints;
import dev.agentswarm.learner.rl.GrpoSettings;
import dev.agentswarm.learner.rl.GrpoTrainer;
import dev.agentswarm.orchestrator.GroupLedger;
import dev.agentswarm.orchestrator.RolloutCoordinator;
import dev.agentswarm.workers.EmbeddedPolicy;
import dev.agentswarm.workers.EpisodeServices;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.TreeSet;
import dev.agentswarm.orchestrator.swarm.SwarmEpisodes;
import dev.agentswarm.orchestrator.swarm.SwarmSettings;
import dev.agentswarm.orchestrator.WorkerRoute;
import dev.agentswarm.policy.openai.OpenAiCompatiblePolicy;
import java.util.concurrent.CompletableFuture;
import me.tongfei.progressbar.ProgressBar;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One GRPO training run on a one-node cluster: the embedded policy serves the episodes of a suite's
 * train split, the rollout coordinator hands complete groups to the learner, and the learner's
 * weights reach the policy server while sampling goes on: the learner hands them to the node's
 * {@link WeightsSource}, which announces them on the {@link WeightsProtocol#TOPIC} topic, and each
 * node's weights fetcher pulls them in chunks.
 * The run folder gets {@code trajectories.jsonl} and {@code metrics.jsonl}.
 */
public final class Training {

    private static final Logger LOG = LoggerFactory.getLogger(Training.class);

    /** The run's resolved configuration, which a resumed run and every learner read back; secrets as references. */
    public static final String CONFIG_FILE = "train.conf";

    /** How the run ended and where its files are. */
    public record Outcome(RolloutCoordinator.Summary summary, Path runDir) {}

    private Training() {}

    public static Outcome run(Config cfg) throws Exception {
        return run(cfg, null);
    }

    /**
     * @param resume a run folder to continue from its latest checkpoint (its step, version, task
     *     cursor, weights and optimizer moments) with the configuration it saved, or null for a new
     *     run; only {@code agentswarm.train.steps}, the total to reach, is taken from {@code cfg}
     */
    public static Outcome run(Config cfg, Path resume) throws Exception {
        return run(cfg, resume, null);
    }

    /**
     * As {@link #run(Config, Path)}; with {@code join} set, on the running cluster there: episodes run
     * on its worker nodes (which serve the model they were started with, then each update), updates
     * on its learner singleton, which reads the run folder, so that folder must be on storage every
     * learner node reads at the same path.
     */
    public static Outcome run(Config cfg, Path resume, org.apache.pekko.actor.Address join) throws Exception {
        Path checkpoint = null;
        GrpoTrainer.Resume at = new GrpoTrainer.Resume(0, 0, 0);
        if (resume != null) {
            checkpoint = Checkpoints.latest(resume).orElseThrow(() -> new IllegalArgumentException(
                    "no checkpoint in " + resume + " to resume from (checkpoints/latest is missing)"));
            at = GrpoTrainer.Resume.read(checkpoint);
            // The run's own configuration, whatever the command line says, but for the total steps.
            Path saved = resume.resolve(CONFIG_FILE);
            if (!Files.isRegularFile(saved)) throw new IllegalArgumentException(resume + " is not a training run folder (no " + CONFIG_FILE + ")");
            cfg = ConfigFactory.parseFile(saved.toFile())
                    .withValue("agentswarm.train.steps", cfg.getValue("agentswarm.train.steps"))
                    .withValue("agentswarm.http", cfg.getValue("agentswarm.http")) // this node's endpoints, not the saved run's
                    .withValue("agentswarm.train.run-dir", ConfigValueFactory.fromAnyRef(resume.toString()))
                    .withValue("agentswarm.policy.embedded.weights",
                            ConfigValueFactory.fromAnyRef(checkpoint.resolve(Checkpoints.MODEL).toString()))
                    .withFallback(cfg).resolve();
        }
        long startStep = at.step();
        Config t = cfg.getConfig("agentswarm.train");
        if (startStep >= t.getInt("steps")) {
            throw new IllegalArgumentException("the run is at step " + startStep + " already; raise agentswarm.train.steps (--steps) to go on");
        }
        String suiteName = t.getString("suite");
        Suite suite = SuiteCatalog.one(cfg, suiteName, OpenAiCompatiblePolicy::connect);
        List<Task> tasks = suite.tasks(Split.TRAIN, t.getInt("tasks"));
        if (tasks.isEmpty()) throw new IllegalArgumentException("suite " + suiteName + " has no train tasks");
        EpisodeSpec spec = suite.spec(EpisodeSpec.fromConfig(cfg.getConfig("agentswarm.episode")));
        GrpoSettings grpo = GrpoSettings.fromConfig(cfg, spec.sampling().maxTokens());
        RolloutCoordinator.Settings settings = new RolloutCoordinator.Settings(grpo.numGenerations(), t.getInt("max-inflight"),
                t.getInt("groups-per-step"), t.getInt("max-staleness"), t.getInt("steps"), t.getBoolean("sync"),
                t.getDuration("episode-timeout"),
                new GroupLedger.DynamicSampling(grpo.groups().dynamicSampling(), t.getInt("max-num-gen-batches")),
                t.getDuration("ack-timeout"), t.getInt("infra-retries"));
        Path runDir = (resume != null ? resume : newRunDir(t.getString("run-dir"), suiteName)).toAbsolutePath();
        if (resume == null) {
            // Every learner node reads this back: secrets go as ${?VARIABLE}, resolved from the reader's environment.
            ConfigSecrets.Rendered conf = ConfigSecrets.render(cfg.withOnlyPath("agentswarm"));
            RunDirs.writeOwnerOnly(runDir.resolve(CONFIG_FILE), conf.text() + "\n");
            conf.unset().forEach((variable, setting) -> LOG.warn("{} is saved in {} as {}: set {} where the run resumes and on"
                    + " its learner nodes", setting, CONFIG_FILE, "${?" + variable + "}", variable));
        }
        Suites suites = new Suites(List.of(suite));
        ToolRegistry tools = EpisodeRuns.nodeTools(cfg, suites);
        CompletableFuture<RolloutCoordinator.Summary> done = new CompletableFuture<>();
        // The learner in this JVM (when not joined) opens this run, chosen here; a cluster's learner nodes have their own folder.
        Config runConfig = join != null ? cfg : cfg.withValue(TrainingRuns.RUNS_KEY, ConfigValueFactory.fromAnyRef(runDir.toString()));
        // Accepted trajectories are never dropped; metrics of steps after the checkpoint are redone, so they go.
        try (MetricsLog trajectories = MetricsLog.appendOnly(runDir.resolve("trajectories.jsonl"));
             MetricsLog metrics = MetricsLog.open(runDir.resolve("metrics.jsonl"), startStep);
             SwarmNode node = SwarmNode.startOrJoin(runConfig,
                     system -> new EpisodeServices(EmbeddedPolicy.spawn(system, runConfig), tools, suites), join);
             ProgressBar bar = EpisodeRuns.progressBar("training steps", settings.steps())) {
            bar.stepTo(startStep);
            ActorSystem<Void> system = node.system();
            if (join != null) node.awaitMembers(SwarmNode.LEARNER_ROLE, 1, Duration.ofSeconds(30));
            // The cluster's learner singleton (in this JVM unless joined) opens the run from its folder.
            ActorRef<LearnerProtocol.Command> learner = node.learner();
            // Training the orchestrator: episodes go to swarms, whose episodes go to the workers.
            WorkerRoute workers = WorkerRoute.sharded(node.workerRegion(), node.workerEntities());
            WorkerRoute episodes = !t.getBoolean("swarm") ? workers : WorkerRoute.direct(system.systemActorOf(
                    SwarmEpisodes.create(SwarmSettings.fromConfig(runConfig, new TreeSet<>(tools.names())), workers), "swarm-episodes",
                    Props.empty()));
            system.systemActorOf(RolloutCoordinator.create(settings, tasks, at.dataCursor(), spec,
                    new RolloutCoordinator.Wiring(episodes, learner, runDir.toString()), at.version(), startStep, trajectories,
                    metrics, bar::stepTo, done), "rollout-coordinator", Props.empty());
            done.get();
            // The last update is always saved, whatever checkpoint-every says.
            LearnerProtocol.Checkpointed saved = AskPattern.<LearnerProtocol.Command, LearnerProtocol.Checkpointed>ask(learner,
                    replyTo -> new LearnerProtocol.Checkpoint(done.get().cursor(), runDir.toString(), replyTo), Duration.ofMinutes(5),
                    system.scheduler())
                    .toCompletableFuture().get();
            if (saved.error() != null) throw new IllegalStateException(saved.error());
        }
        return new Outcome(done.get(), runDir);
    }

    /** A new run claims a folder of its own, created here; one that exists is another run's, which only --resume continues. */
    private static Path newRunDir(String configured, String suite) throws java.io.IOException {
        return configured.isBlank() ? RunDirs.timestamped("train-" + suite) : RunDirs.createNamed(Path.of(configured), "--resume");
    }
}
