package dev.agentswarm.app.cli;

import com.typesafe.config.Config;
import dev.agentswarm.app.BatchRunner;
import dev.agentswarm.app.ClusterSwarms;
import dev.agentswarm.app.EpisodeRuns;
import dev.agentswarm.app.JournalDatabase;
import dev.agentswarm.app.RunDirs;
import dev.agentswarm.app.SwarmNode;
import dev.agentswarm.app.SwarmRun;
import dev.agentswarm.app.SwarmView;
import com.typesafe.config.ConfigValueFactory;
import dev.agentswarm.orchestrator.swarm.Orchestrator;
import dev.agentswarm.orchestrator.swarm.SwarmResult;
import dev.agentswarm.orchestrator.swarm.SwarmSettings;
import dev.agentswarm.orchestrator.swarm.SwarmTrace;
import dev.agentswarm.testkit.RunRecording;
import dev.agentswarm.environments.SuiteCatalog;
import dev.agentswarm.environments.Suites;
import java.util.Set;
import java.util.TreeSet;
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
import dev.agentswarm.policy.openai.OpenAiCompatiblePolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "run", mixinStandardHelpOptions = true,
        description = {"Run a swarm on TASK: an orchestrator plans sub-tasks with spawn_subagents, sub-agents work on them in",
                "parallel, and a live tree shows each one's state, turns and last action; then the answer and the metrics.",
                "The run folder gets trace.jsonl, trace.html (the swarm as a timeline) and recording.jsonl (for --replay).",
                "--single runs one agent episode with the calculator (and finish) tools instead.",
                "The policy is the embedded model (--policy embedded), an OpenAI-compatible server (--endpoint/--model)",
                "or a scripted policy (--script)."})
public final class RunCommand implements Callable<Integer> {

    @Parameters(index = "0", arity = "0..1", paramLabel = "TASK", description = "What to do, e.g. \"What is (17 + 4) * 3 ^ 2?\"")
    String task;

    @Option(names = "--single", description = "Run one agent episode, not a swarm.")
    boolean single;

    @Option(names = "--run-dir", paramLabel = "DIR", description = "Swarm: where trace.jsonl, trace.html and recording.jsonl go (default runs/swarm-<time>).")
    Path runDir;

    @Option(names = "--replay", paramLabel = "RUN_DIR",
            description = "Swarm: run the swarm of RUN_DIR again from its recording.jsonl and check that the trace is the same.")
    Path replay;

    @Option(names = "--resume", paramLabel = "RUN_DIR",
            description = {"Swarm: continue the swarm of RUN_DIR whose process died, from its journal: sub-agents that answered are",
                    "not run again, the others and the orchestrator go on after their last recorded turn."})
    Path resume;

    @Option(names = "--no-journal", description = {"Swarm: keep no journal (faster to start; the swarm cannot be resumed).",
            "With --join: run the swarm's orchestrator in this JVM, not on the cluster's orchestrator nodes."})
    boolean noJournal;

    @Option(names = "--attach", paramLabel = "RUN",
            description = {"Swarm, with --join: follow the cluster's swarm RUN (its id was printed when it started) and print its",
                    "answer; a finished swarm answers from its journal."})
    String attach;

    @Option(names = "--max-subagents", description = "Swarm: sub-agents in total (default: agentswarm.swarm.max-subagents, 100).")
    Integer maxSubAgents;

    @Option(names = "--max-parallel", description = "Swarm: sub-agents at once (default: agentswarm.swarm.max-parallel, 32).")
    Integer maxParallel;

    @Option(names = "--suite", paramLabel = "NAME",
            description = "Swarm: sub-agents may also use this suite's tools, e.g. multihop (search over its generated world).")
    String suite;

    @Mixin
    PolicyOptions policyOptions;

    @Mixin
    JoinOption joinOption;

    @Mixin
    MetricsOptions metrics;

    @Mixin
    JsonOption json;

    @Option(names = "--config", paramLabel = "FILE", description = "HOCON file overriding the defaults (agentswarm.episode…, agentswarm.policy…).")
    Path config;

    @Option(names = "--format", description = "Tool-call format: hermes, react, openai or json-plan (default: from config, hermes).")
    String format;

    @Option(names = "--max-turns", description = "Policy turns before giving up (default: from config, 16).")
    Integer maxTurns;

    @Option(names = "--tools", split = ",",
            description = "Tools the episode (--single; default calculator,finish) or the sub-agents (default: all) may call, from those"
                    + " this node offers: calculator, finish, python, code_interpreter, bash (the last three run in the sandbox).")
    List<String> tools;

    @Option(names = "--record", paramLabel = "FILE", description = "--single: record every policy answer and tool result to this JSONL file for `swarm replay`.")
    Path record;

    @Override
    public Integer call() throws Exception {
        if (!single) return runSwarm();
        if (task == null) throw new IllegalArgumentException("give the TASK to run");
        if (tools == null) tools = List.of("calculator", "finish");
        Config cfg = metrics.apply(SwarmNode.loadConfig(config));
        EpisodeSpec spec = EpisodeSpec.fromConfig(cfg.getConfig("agentswarm.episode")).withTools(tools);
        if (format != null) spec = spec.withFormat(ToolCallFormats.byName(format).name());
        if (maxTurns != null) {
            spec = spec.withLimits(maxTurns, spec.tokenBudget(), spec.contextBudget(), spec.deadlineMillis(), spec.toolTimeoutMillis());
        }
        org.apache.pekko.actor.Address join = joinedCluster();
        boolean embedded = join == null && policyOptions.embedded();
        if (embedded) cfg = policyOptions.embeddedConfig(cfg);
        Policy given = embedded || join != null ? null : policyOptions.create(cfg);
        ToolRegistry nodeTools = EpisodeRuns.nodeTools(cfg);
        nodeTools.select(spec.tools()); // an unknown --tools name is bad input: say so before starting a node
        Task t = Task.of("task-1", task);
        String episodeId = singleEpisodeId(join != null);
        BatchRunner.Job job = new BatchRunner.Job(episodeId, episodeId, t, spec);

        RunRecorder recorder = record == null ? null : new RunRecorder(record);
        try {
            if (recorder != null) {
                nodeTools = recorder.wrap(nodeTools);
                recorder.episode(job.episodeId(), job.groupId(), t, spec);
            }
            ToolRegistry episodeTools = nodeTools;
            Config nodeConfig = cfg;
            Trajectory result;
            try (SwarmNode node = SwarmNode.startOrJoin(cfg, system -> {
                Policy policy = embedded ? EmbeddedPolicy.spawn(system, nodeConfig) : given;
                return new EpisodeServices(recorder == null ? policy : recorder.wrap(policy), episodeTools);
            }, join)) {
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

    /**
     * The episode id of a {@code --single} run: {@code run-1} on its own node; on a cluster, where other
     * jobs' episodes run on the same workers at the same time, one of its own (workers key episodes by id,
     * and a second {@code run-1} would take the first one's place).
     */
    static String singleEpisodeId(boolean onCluster) {
        return onCluster ? "run-" + java.util.UUID.randomUUID() : "run-1";
    }

    private Integer runSwarm() throws Exception {
        if (record != null) throw new IllegalArgumentException("a swarm run always records to its run folder; --record is for --single");
        Config cfg = metrics.apply(SwarmNode.loadConfig(config));
        if (format != null) cfg = cfg.withValue("agentswarm.episode.format", ConfigValueFactory.fromAnyRef(ToolCallFormats.byName(format).name()));
        if (maxTurns != null) cfg = cfg.withValue("agentswarm.episode.max-turns", ConfigValueFactory.fromAnyRef(maxTurns));
        if (maxSubAgents != null) cfg = cfg.withValue("agentswarm.swarm.max-subagents", ConfigValueFactory.fromAnyRef(maxSubAgents));
        if (maxParallel != null) cfg = cfg.withValue("agentswarm.swarm.max-parallel", ConfigValueFactory.fromAnyRef(maxParallel));

        org.apache.pekko.actor.Address join = joinedCluster();
        if (attach != null && (join == null || noJournal)) {
            throw new IllegalArgumentException("--attach follows a swarm of a cluster: give --join SEED (and no --no-journal)");
        }
        if (join != null && resume != null) {
            throw new IllegalArgumentException("--resume is for a swarm of this machine: a cluster's swarm goes on by itself"
                    + " when its node dies; follow it with --join SEED --attach RUN");
        }
        if (attach != null && task != null) throw new IllegalArgumentException("--attach follows a swarm already started: give no TASK");
        RunRecording recording = null;
        List<com.fasterxml.jackson.databind.JsonNode> recordedTrace = null;
        if (replay != null && resume != null) throw new IllegalArgumentException("give --replay or --resume, not both");
        if (replay != null) {
            if (task != null) throw new IllegalArgumentException("--replay runs the recorded task: give no TASK");
            recording = RunRecording.load(replay.resolve("recording.jsonl"));
            recordedTrace = SwarmTrace.read(replay.resolve("trace.jsonl"));
            task = taskOf(replay, recordedTrace);
        }
        if (resume != null) {
            if (task != null) throw new IllegalArgumentException("--resume goes on with the swarm's own task: give no TASK");
            if (noJournal) throw new IllegalArgumentException("--resume reads the swarm's journal: give no --no-journal");
            if (!Files.isDirectory(resume)) throw new IllegalArgumentException("--resume: no run folder at " + resume);
            task = taskOf(resume, SwarmTrace.read(resume.resolve("trace.jsonl")));
            runDir = resume;
        }
        if (task == null && attach == null) throw new IllegalArgumentException("give the TASK to run (or --replay RUN_DIR)");
        if (join != null && recording != null) throw new IllegalArgumentException("--replay runs in this JVM: give no --join");
        boolean embedded = recording == null && join == null && policyOptions.embedded();
        if (embedded) cfg = policyOptions.embeddedConfig(cfg);
        Policy given = recording != null ? recording.policy() : embedded || join != null ? null : policyOptions.create(cfg);
        ToolRegistry nodeTools = recording != null ? recording.tools() : suite == null ? EpisodeRuns.nodeTools(cfg)
                : EpisodeRuns.nodeTools(cfg, new Suites(List.of(SuiteCatalog.one(cfg, suite, OpenAiCompatiblePolicy::connect))));
        Set<String> subAgentTools = new TreeSet<>(tools == null ? nodeTools.names() : tools);
        nodeTools.select(List.copyOf(subAgentTools)); // an unknown --tools name is bad input: say so before starting a node
        SwarmSettings settings = SwarmSettings.fromConfig(cfg, subAgentTools);
        if (join != null && !noJournal) return runOnCluster(cfg, join, settings, subAgentTools);

        Path dir = runDir != null ? runDir : RunDirs.timestamped(recording != null ? "swarm-replay" : "swarm");
        // A replay checks its trace against the recorded one: it runs unjournaled. A resumed run keeps the first recording.
        boolean durable = !noJournal && recording == null;
        if (durable) {
            cfg = JournalDatabase.settings(cfg, dir);
            if (resume != null && JournalDatabase.kind(cfg) == JournalDatabase.Kind.H2 && !Files.exists(dir.resolve("journal.mv.db"))) {
                throw new IllegalArgumentException("--resume: " + dir + " has no journal (journal.mv.db): it was run with --no-journal,"
                        + " or with another journal database (give its --config)");
            }
            if (resume != null && JournalDatabase.kind(cfg) != JournalDatabase.Kind.H2 && !Files.exists(dir.resolve("run-id"))) {
                throw new IllegalArgumentException("--resume: " + dir + " has no run-id: its swarm was not journaled in a shared database"
                        + " (it ran with --no-journal, or with its own H2 journal: give no --config of a shared one)");
            }
            JournalDatabase.check(cfg);
        }
        RunRecorder recorder = recording != null || resume != null ? null : new RunRecorder(dir.resolve("recording.jsonl"));
        ToolRegistry episodeTools = recorder == null ? nodeTools : recorder.wrap(nodeTools);
        Config nodeConfig = cfg;
        SwarmRun.Outcome outcome;
        Config journalConfig = cfg;
        SwarmView view = json.json ? SwarmView.lines(System.err) : SwarmView.onStderr();
        try (SwarmNode node = SwarmNode.startOrJoin(cfg, system -> {
            Policy policy = embedded ? EmbeddedPolicy.spawn(system, nodeConfig) : given;
            return new EpisodeServices(recorder == null ? policy : recorder.wrap(policy), episodeTools);
        }, join)) {
            if (durable) JournalDatabase.createSchema(node.system(), journalConfig);
            // In a shared database (PostgreSQL) every run folder's swarm has a journal of its own.
            String runId = SwarmRun.runId(dir, durable && JournalDatabase.kind(journalConfig) != JournalDatabase.Kind.H2);
            // A folder with a trace has run a swarm (the trace is open before it starts): its journal may hold it.
            SwarmRun.Journaling journaling = !durable ? SwarmRun.Journaling.NONE
                    : resume != null || Files.exists(dir.resolve("trace.jsonl")) ? SwarmRun.Journaling.RESUME : SwarmRun.Journaling.NEW;
            outcome = SwarmRun.run(node, settings, Task.of("task-1", task), dir, view, journaling, runId);
        } finally {
            view.close();
            if (recorder != null) recorder.close();
        }
        SwarmResult r = outcome.result();
        Report rep = swarmReport(view, r.answer(), r.stopReason(), r.error(), r.missing(), r.budgetExhausted());
        SwarmResult.Metrics m = r.metrics();
        rep.line(String.format("%d sub-agents in %d rounds, %d turns, %d tokens; critical steps %d of %d (parallelism %.2f); "
                        + "wall %.1f s against %.1f s serial", m.subAgents(), m.rounds(), m.turns(), m.tokens(), m.criticalSteps(),
                m.totalSteps(), m.parallelism(), m.wallNanos() / 1e9, m.serialNanos() / 1e9));
        rep.line("trace: " + outcome.trace() + "  timeline: " + outcome.html());
        rep.put("metrics", Orchestrator.metricsJson(m)).put("reward", r.reward().components()).put("run_dir", dir.toString());
        int exit = r.answered() ? 0 : 1;
        if (recordedTrace != null) {
            List<com.fasterxml.jackson.databind.JsonNode> before = SwarmTrace.canonical(recordedTrace);
            List<com.fasterxml.jackson.databind.JsonNode> after = SwarmTrace.canonical(SwarmTrace.read(outcome.trace()));
            int differs = firstDifference(before, after);
            if (differs < 0) {
                rep.line("replay: the same trace as " + replay + " (" + after.size() + " events)");
            } else {
                rep.line("replay: the trace differs from " + replay + " at event " + (differs + 1) + ":\n  recorded: "
                        + (differs < before.size() ? before.get(differs) : "(none)") + "\n  replayed: "
                        + (differs < after.size() ? after.get(differs) : "(none)"));
                exit = 1;
            }
            rep.put("replay_same_trace", differs < 0);
        }
        rep.print(json.json);
        return exit;
    }

    /** A swarm's report, as far as every swarm has it: the tree, the answer or why none, what is missing, the budget spent. */
    private static Report swarmReport(SwarmView view, String answer, dev.agentswarm.core.protocol.StopReason stop, String error,
                                      List<String> missing, String budgetExhausted) {
        Report rep = new Report();
        for (String line : view.tree()) rep.line(line);
        rep.line("");
        rep.line(answer != null ? "answer: " + answer : "no answer (" + stop + (error == null ? "" : ": " + error) + ")");
        if (!missing.isEmpty()) rep.line("missing: " + String.join(", ", missing));
        if (budgetExhausted != null) rep.line("budget spent: " + budgetExhausted);
        return rep.put("answer", answer).put("stop_reason", stop.name()).put("missing", missing).put("budget_exhausted", budgetExhausted);
    }

    /**
     * A swarm of the cluster at {@code join}: it runs on one of the cluster's orchestrator nodes, journaled
     * there, and goes on on another if that node dies; this JVM follows it (the live tree, the answer).
     */
    private Integer runOnCluster(Config cfg, org.apache.pekko.actor.Address join, SwarmSettings settings, Set<String> tools)
            throws Exception {
        String runId = attach != null ? attach : ClusterSwarms.newRunId();
        SwarmView view = json.json ? SwarmView.lines(System.err) : SwarmView.onStderr();
        ClusterSwarms.Outcome outcome;
        // Time budgets start again when a swarm moves: allow for one move, and the cluster's time to notice it.
        java.time.Duration limit = settings.budget().deadline().multipliedBy(2).plus(settings.lostAfter()).plusSeconds(60);
        try (SwarmNode node = SwarmNode.join(cfg, join)) {
            try {
                node.awaitMembers(SwarmNode.ORCHESTRATOR_ROLE, 1, cfg.getDuration("agentswarm.node.join-timeout"));
            } catch (java.util.concurrent.TimeoutException e) {
                throw new IllegalStateException("the cluster at " + join + " has no orchestrator node to run the swarm: start one with"
                        + " `swarm node --roles orchestrator,worker --seed " + join + "`, or run the swarm in this JVM with --no-journal");
            }
            outcome = ClusterSwarms.run(node, runId, attach != null ? null : Task.of("task-1", task), cfg, List.copyOf(tools), view,
                    a -> System.err.println((a.resumed() ? "swarm " + runId + " goes on on " : "swarm " + runId + " runs on ") + a.node()
                            + (a.resumed() ? "" : "  (follow it from anywhere: swarm run --join " + join + " --attach " + runId + ")")),
                    limit);
        } finally {
            view.close();
        }
        dev.agentswarm.orchestrator.swarm.SwarmEntity.Finished f = outcome.finished();
        Report rep = swarmReport(view, f.answer(), f.stopReason(), f.error(), f.missing(), f.budgetExhausted());
        SwarmResult.Metrics m = f.metrics();
        rep.line(String.format("%d sub-agents in %d rounds, %d turns, %d tokens; %s", m.subAgents(), m.rounds(), m.turns(),
                m.tokens(), m.wallNanos() == 0 ? "answered from its journal" : String.format("wall %.1f s", m.wallNanos() / 1e9)));
        rep.line("swarm " + runId + " ran on " + String.join(" then ", outcome.nodes()) + "; its trace is on " + f.node()
                + " in its swarm folder (agentswarm.node.swarms-dir)/" + runId);
        rep.put("metrics", Orchestrator.metricsJson(m)).put("run_id", runId).put("nodes", outcome.nodes()).put("finished_on", f.node());
        rep.print(json.json);
        return f.answer() != null ? 0 : 1;
    }

    /**
     * The cluster given with --join, whose worker nodes bring the policy and tools (this JVM's
     * policy options and recording would not reach them), or null.
     */
    private org.apache.pekko.actor.Address joinedCluster() {
        org.apache.pekko.actor.Address join = joinOption.address();
        if (join != null && (policyOptions.kind != null || policyOptions.script != null || policyOptions.endpoint != null)) {
            throw new IllegalArgumentException("with --join the cluster's worker nodes bring the policy: give no --policy, --script or --endpoint");
        }
        if (join != null && record != null) throw new IllegalArgumentException("--record records this JVM's policy and tools: give no --join");
        return join;
    }

    /** The task a run folder's swarm was started on, from its trace. */
    private static String taskOf(Path dir, List<com.fasterxml.jackson.databind.JsonNode> trace) {
        return trace.stream().filter(e -> e.path("kind").asText().equals("swarm_started")).findFirst()
                .orElseThrow(() -> new IllegalArgumentException(dir + "/trace.jsonl has no swarm_started event"))
                .path("task").asText();
    }

    private static int firstDifference(List<?> a, List<?> b) {
        for (int i = 0; i < Math.max(a.size(), b.size()); i++) {
            if (i >= a.size() || i >= b.size() || !a.get(i).equals(b.get(i))) return i;
        }
        return -1;
    }
}
