package dev.agentswarm.app;

import com.typesafe.config.Config;
import dev.agentswarm.core.json.MetricsLog;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.tool.ToolRegistry;
import dev.agentswarm.environments.Split;
import dev.agentswarm.environments.Suite;
import dev.agentswarm.environments.Suites;
import dev.agentswarm.environments.eval.EvalReport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Runs {@code samples} episodes of each task of a suite on a one-node cluster and reports them the
 * seeds' way ({@link EvalReport}); every trajectory is appended to a file as it arrives.
 */
public final class Evaluation {

    /** The report, each episode with its task (in task order, samples together), and the wall time. */
    public record Result(EvalReport report, List<EvalReport.Episode> episodes, double seconds) {

        /** The passing episodes' transcripts as {"messages": […]} lines for SFT; returns how many. */
        public int writeDemonstrations(Path out) throws java.io.IOException {
            List<com.fasterxml.jackson.databind.node.ObjectNode> demos = episodes.stream().filter(EvalReport::passed)
                    .map(e -> TrajectoryExport.toMessages(e.trajectory())).toList();
            TrajectoryExport.write(demos, out);
            return demos.size();
        }
    }

    private Evaluation() {}

    /** The task of an episode {@link #run} started: its ids are {@code <task id>#<sample>}. */
    public static java.util.function.Function<String, Task> taskOfEpisode(List<Task> tasks) {
        java.util.Map<String, Task> byId = new java.util.HashMap<>();
        for (Task t : tasks) byId.put(t.id(), t);
        return episode -> byId.get(episode.substring(0, episode.lastIndexOf('#')));
    }

    /**
     * @param policy the node's policy, made on its actor system (the embedded model needs one)
     * @param policyName how the report names the policy
     * @param trajectories the JSON-lines file every trajectory is appended to
     */
    public static Result run(Config cfg, Suite suite, Split split, List<Task> tasks, int samples, int inflight,
                             Function<ActorSystem<Void>, Policy> policy, String policyName, Path trajectories) throws Exception {
        return run(cfg, suite, split, tasks, samples, inflight, policy, policyName, trajectories, null);
    }

    /** As above; with {@code join} set, the episodes run on the worker nodes of the cluster there, with their own policy. */
    public static Result run(Config cfg, Suite suite, Split split, List<Task> tasks, int samples, int inflight,
                             Function<ActorSystem<Void>, Policy> policy, String policyName, Path trajectories,
                             org.apache.pekko.actor.Address join) throws Exception {
        if (tasks.isEmpty()) throw new IllegalArgumentException("suite " + suite.name() + " has no " + split.label() + " tasks");
        if (samples < 1 || inflight < 1) throw new IllegalArgumentException("samples and inflight must be >= 1");
        EpisodeSpec spec = suite.spec(EpisodeSpec.fromConfig(cfg.getConfig("agentswarm.episode")));
        List<BatchRunner.Job> jobs = new ArrayList<>();
        for (Task t : tasks) for (int k = 0; k < samples; k++) jobs.add(new BatchRunner.Job(t.id() + "#" + k, t.id(), t, spec));
        Suites suites = new Suites(List.of(suite));
        ToolRegistry tools = EpisodeRuns.nodeTools(cfg, suites);
        java.nio.file.Files.deleteIfExists(trajectories); // the file holds this evaluation alone
        long started = System.nanoTime();
        List<Trajectory> results;
        try (MetricsLog log = MetricsLog.appendOnly(trajectories);
             SwarmNode node = SwarmNode.startOrJoin(cfg,
                     system -> new dev.agentswarm.workers.EpisodeServices(policy.apply(system), tools, suites), join)) {
            results = EpisodeRuns.runAll(node, jobs, inflight, log::append);
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        List<EvalReport.Episode> episodes = new ArrayList<>();
        for (int i = 0; i < jobs.size(); i++) episodes.add(new EvalReport.Episode(jobs.get(i).task(), results.get(i)));
        EvalReport report = new EvalReport(suite.name(), split.label(), policyName, suite.reportColumns(), suite.categoryKey(), episodes,
                suite::summary);
        return new Result(report, episodes, seconds);
    }
}
