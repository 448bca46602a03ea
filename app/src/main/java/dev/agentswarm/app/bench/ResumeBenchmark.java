package dev.agentswarm.app.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.app.JournalDatabase;
import dev.agentswarm.app.SwarmJournals;
import dev.agentswarm.app.SwarmNode;
import dev.agentswarm.app.SwarmRun;
import dev.agentswarm.app.cli.Report;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.tool.FinishTool;
import dev.agentswarm.core.tool.ToolRegistry;
import dev.agentswarm.orchestrator.swarm.Orchestrator;
import dev.agentswarm.orchestrator.swarm.RoundState;
import dev.agentswarm.orchestrator.swarm.SwarmEvent;
import dev.agentswarm.orchestrator.swarm.SwarmEventSerializer;
import dev.agentswarm.orchestrator.swarm.SwarmJournal;
import dev.agentswarm.orchestrator.swarm.SwarmLedger;
import dev.agentswarm.orchestrator.swarm.SwarmResult;
import dev.agentswarm.orchestrator.swarm.SwarmSettings;
import dev.agentswarm.orchestrator.swarm.SwarmTrace;
import dev.agentswarm.workers.EpisodeServices;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * How fast a durable swarm is running again after its process died ({@code resume_s}): a swarm of
 * {@code subagents} sub-agents, {@code answered} of which have answered and the others are mid-episode
 * with {@code turns} turns recorded, is journaled on H2 (a real swarm, stopped there); then a new JVM
 * resumes it, and the time is taken from that JVM's start to the moment every in-flight sub-agent has
 * been re-sent, has replayed its recorded turns and asks the policy for its next one. Each resume works
 * on a fresh copy of the journal, with its snapshots and with them deleted (a full replay).
 */
public final class ResumeBenchmark {

    public record Settings(int subAgents, int answered, int turns, int snapshotEvery, int reps) {
        public Settings {
            if (subAgents < 2 || answered < 0 || answered >= subAgents || turns < 1 || snapshotEvery < 1 || reps < 1) {
                throw new IllegalArgumentException("need subagents >= 2, 0 <= answered < subagents, turns >= 1, snapshot-every >= 1, reps >= 1");
            }
        }
    }

    private ResumeBenchmark() {}

    private static final Task TASK = Task.of("resume", "Run the swarm");

    static Config config(Settings s, Path runDir) {
        Config c = SwarmBenchmark.config(s.subAgents(), s.turns(),
                ConfigFactory.parseString("agentswarm.swarm.journal.snapshot-every = " + s.snapshotEvery()));
        return JournalDatabase.settings(c, runDir);
    }

    /** The journal's state, read as a new process would (over JDBC, checked by a ledger). */
    private static SwarmLedger journaled(Config config, org.apache.pekko.serialization.Serialization serialization) throws Exception {
        try (Connection c = JournalDatabase.connect(config)) {
            return SwarmLedger.replay(SwarmJournals.events(c, SwarmJournal.persistenceId(SwarmRun.RUN_ID + ":root").id(), serialization));
        }
    }

    private static long running(SwarmLedger ledger, int turns) {
        return ledger.running().values().stream().filter(a -> {
            var steps = ledger.history(a.episodeId()).steps();
            return steps.size() == turns && steps.get(turns - 1).results() != null;
        }).count();
    }

    private static int answered(SwarmLedger ledger) {
        int n = 0;
        for (SwarmLedger.Round r : ledger.rounds()) n += r.state().count(RoundState.State.DONE);
        return n;
    }

    /**
     * The first process: runs the swarm until its journal holds the crash point, prints
     * {@code CRASHPOINT <events>} and waits to be killed (SIGKILL: nothing is shut down in order).
     */
    private static void writeJournal(Settings s, Path runDir) throws Exception {
        Config config = config(s, runDir);
        Policy policy = SwarmBenchmark.script(s.subAgents(), s.turns(), (i, req) -> i < s.answered() ? CompletableFuture.completedFuture(SwarmBenchmark.completion(req, "finished"))
                : new CompletableFuture<>()); // the process dies before these turns come back
        EpisodeServices services = new EpisodeServices(policy, ToolRegistry.of(new SwarmBenchmark.WorkTool(0, false), new FinishTool()));
        SwarmNode node = SwarmNode.startEmbedded(config, services);
        JournalDatabase.createSchema(node.system(), config);
        var serialization = org.apache.pekko.serialization.SerializationExtension.get(node.system().classicSystem());
        SwarmRun.start(node, SwarmSettings.fromConfig(config, Set.of("work")), SwarmRun.RUN_ID, TASK, SwarmTrace.none(),
                new CompletableFuture<>(), SwarmRun.Journaling.NEW);
        long until = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        while (true) {
            SwarmLedger l = journaled(config, serialization);
            if (answered(l) == s.answered() && running(l, s.turns()) == s.subAgents() - s.answered()) {
                Thread.sleep(Long.getLong("crashpoint.pause", 500)); // the swarm waits on its policy now: the snapshot after the last batch is stored meanwhile
                System.out.println("CRASHPOINT " + l.events());
                System.out.flush();
                Thread.sleep(TimeUnit.MINUTES.toMillis(10));
                System.exit(1);
            }
            if (System.nanoTime() > until) throw new IllegalStateException("the swarm never reached the crash point: " + l.view());
            Thread.sleep(50);
        }
    }

    /**
     * The processes of the bench: {@code write RUN_DIR ...} writes the journal ({@link #writeJournal}),
     * {@code resume RUN_DIR ...} resumes the run and prints one JSON line of timings, all in
     * ms from this JVM's start: main entered, node up, every in-flight sub-agent asking for its next turn,
     * the swarm's answer. Exits 0 when the swarm answered with every sub-agent's answer and nothing was run twice.
     */
    public static void main(String[] args) throws Exception {
        long mainAt = System.currentTimeMillis();
        long jvmStart = ManagementFactory.getRuntimeMXBean().getStartTime();
        Path runDir = Path.of(args[1]);
        Settings s = new Settings(Integer.parseInt(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]),
                Integer.parseInt(args[5]), 1);
        if (args[0].equals("write")) {
            writeJournal(s, runDir);
            return;
        }
        Config config = config(s, runDir);
        int inFlight = s.subAgents() - s.answered();
        AtomicInteger resumed = new AtomicInteger();
        AtomicLong runningAt = new AtomicLong();
        Set<Integer> seen = ConcurrentHashMap.newKeySet();
        AtomicInteger rerun = new AtomicInteger(); // policy calls a resume must not make: recorded turns, answered sub-agents
        Set<String> rerunCalls = ConcurrentHashMap.newKeySet();
        Policy policy = SwarmBenchmark.script(s.subAgents(), s.turns(), (i, req) -> {
            if (i < s.answered() || !seen.add(i)) {
                rerun.incrementAndGet();
                rerunCalls.add(req.episodeId() + "@" + req.turn());
            }
            else if (resumed.incrementAndGet() == inFlight) runningAt.set(System.currentTimeMillis());
            return CompletableFuture.completedFuture(SwarmBenchmark.completion(req, "finished"));
        });
        Policy counted = req -> {
            String agent = Orchestrator.agentOf(req.episodeId());
            if (!agent.equals("root") && req.turn() <= s.turns()) {
                rerun.incrementAndGet();
                rerunCalls.add(req.episodeId() + "@" + req.turn());
            }
            return policy.complete(req);
        };
        EpisodeServices services = new EpisodeServices(counted, ToolRegistry.of(new SwarmBenchmark.WorkTool(0, false), new FinishTool()));
        ObjectNode out = Json.MAPPER.createObjectNode();
        try (SwarmNode node = SwarmNode.startEmbedded(config, services)) {
            JournalDatabase.createSchema(node.system(), config);
            long nodeAt = System.currentTimeMillis();
            CompletableFuture<SwarmResult> done = new CompletableFuture<>();
            SwarmTrace trace = SwarmTrace.inMemory();
            long startNanos = System.nanoTime();
            long startAt = System.currentTimeMillis();
            SwarmRun.start(node, SwarmSettings.fromConfig(config, Set.of("work")), SwarmRun.RUN_ID, TASK, trace, done, SwarmRun.Journaling.RESUME);
            SwarmResult r = done.get(5, TimeUnit.MINUTES);
            long answeredAt = System.currentTimeMillis();
            // The orchestrator's swarm_resumed: its journal recovered, its state rebuilt, the in-flight sub-agents about to be re-sent.
            double traceOffset = (trace.startNanos() - startNanos) / 1e6;
            for (var e : trace.events()) {
                if (e.path("kind").asText().equals("swarm_resumed")) {
                    out.put("recovered_ms", Math.round(startAt - jvmStart + traceOffset + e.path("t_ms").asDouble()));
                }
            }
            out.put("main_ms", mainAt - jvmStart);
            out.put("node_ms", nodeAt - jvmStart);
            out.put("running_ms", runningAt.get() - jvmStart);
            out.put("answered_ms", answeredAt - jvmStart);
            out.put("answer", r.answer());
            out.put("resumed", resumed.get());
            out.put("rerun", rerun.get());
            String calls = String.join(" ", new java.util.TreeSet<>(rerunCalls));
            if (!calls.isEmpty()) out.put("rerun_calls", calls.substring(0, Math.min(2000, calls.length())));
        }
        System.out.println("RESUME " + out);
        boolean ok = (s.subAgents() + " answers").equals(out.path("answer").asText()) && resumed.get() == inFlight && rerun.get() == 0;
        System.exit(ok ? 0 : 1);
    }

    private static List<String> javaCommand(String mode, Settings s, Path runDir) {
        String java = ProcessHandle.current().info().command().orElse("java");
        return List.of(java, "-Xmx1g", "-Dai.djl.offline=true", "-Dcrashpoint.pause=" + Long.getLong("crashpoint.pause", 500), "-cp", System.getProperty("java.class.path"),
                ResumeBenchmark.class.getName(), mode, runDir.toString(), Integer.toString(s.subAgents()), Integer.toString(s.answered()),
                Integer.toString(s.turns()), Integer.toString(s.snapshotEvery()));
    }

    /** Runs the first process until it reports the crash point, then kills it with SIGKILL; returns the events journaled. */
    private static long writeInNewJvm(Settings s, Path runDir) throws Exception {
        Process p = new ProcessBuilder(javaCommand("write", s, runDir)).redirectErrorStream(true).start();
        StringBuilder tail = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                if (line.startsWith("CRASHPOINT ")) return Long.parseLong(line.substring(11).trim());
                tail.append(line).append('\n');
            }
            throw new IllegalStateException("the first process ended before the crash point: " + tail);
        } finally {
            p.destroyForcibly(); // SIGKILL: the journal is what the database had
            p.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static ObjectNode resumeInNewJvm(Settings s, Path runDir) throws Exception {
        Process p = new ProcessBuilder(javaCommand("resume", s, runDir)).redirectErrorStream(true).start();
        ObjectNode result = null;
        StringBuilder tail = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                if (line.startsWith("RESUME ")) result = (ObjectNode) Json.MAPPER.readTree(line.substring(7));
                else tail.append(line).append('\n');
            }
        }
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException("the resuming process did not end");
        }
        if (p.exitValue() != 0 || result == null) {
            throw new IllegalStateException("the resume failed (exit " + p.exitValue() + "): " + result + "\n" + tail);
        }
        return result;
    }

    private static void copyTree(Path from, Path to) throws java.io.IOException {
        try (var all = Files.walk(from)) {
            for (Path p : all.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(target);
                else Files.copy(p, target);
            }
        }
    }

    /** The events in the journal: an entry is a batch of them (or one event, in journals written before batches). */
    private static long journalEvents(Config config) throws Exception {
        long events = 0;
        try (Connection c = JournalDatabase.connect(config);
             var rs = c.createStatement().executeQuery("SELECT \"event_ser_id\", \"event_payload\" FROM \"event_journal\"")) {
            while (rs.next()) {
                events += rs.getInt(1) != SwarmEventSerializer.IDENTIFIER ? 1
                        : SwarmEvent.Batch.unpacked(List.of(SwarmEventSerializer.decode(rs.getBytes(2)))).size();
            }
        }
        return events;
    }

    private static long snapshots(Config config, boolean delete) throws Exception {
        try (Connection c = JournalDatabase.connect(config)) {
            if (delete) c.createStatement().executeUpdate("DELETE FROM \"snapshot\"");
            try (var rs = c.createStatement().executeQuery("SELECT count(*) FROM \"snapshot\"")) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    public static Map<String, Object> run(Settings s, Consumer<String> log) throws Exception {
        Path root = Files.createTempDirectory("swarm-bench-resume");
        try {
            Path written = root.resolve("written");
            Files.createDirectories(written);
            long events = writeInNewJvm(s, written);
            long kept = journalEvents(config(s, written));
            log.accept("journal written and its process killed: " + events + " events confirmed, " + kept + " in the database");
            if (kept != events) throw new IllegalStateException("the killed process's journal lost confirmed events: " + kept + " of " + events);
            Path plain = root.resolve("plain");
            copyTree(written, plain);
            long snapshotsKept = snapshots(config(s, written), false);
            snapshots(config(s, plain), true);
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("workload", "resume");
            out.put("subagents", s.subAgents());
            out.put("answered", s.answered());
            out.put("in_flight", s.subAgents() - s.answered());
            out.put("turns_recorded", s.turns());
            out.put("journal", "h2");
            out.put("events", events);
            out.put("snapshot_every", s.snapshotEvery());
            out.put("snapshots_kept", snapshotsKept);
            for (String mode : List.of("snapshots", "replay")) {
                double[] running = new double[s.reps()];
                double[] node = new double[s.reps()];
                double[] main = new double[s.reps()];
                double[] recovered = new double[s.reps()];
                for (int i = 0; i < s.reps(); i++) {
                    Path copy = root.resolve(mode + "-" + i);
                    copyTree(mode.equals("snapshots") ? written : plain, copy);
                    ObjectNode r = resumeInNewJvm(s, copy);
                    running[i] = r.path("running_ms").asDouble();
                    node[i] = r.path("node_ms").asDouble();
                    main[i] = r.path("main_ms").asDouble();
                    recovered[i] = r.path("recovered_ms").asDouble();
                    log.accept(String.format("%s %d: running again %.0f ms after the JVM started (main %.0f, node up %.0f, journal"
                                    + " recovered %.0f, answered %.0f)", mode, i + 1, running[i], main[i], node[i], recovered[i],
                            r.path("answered_ms").asDouble()));
                    SwarmBenchmark.deleteTree(copy);
                }
                String k = mode.equals("snapshots") ? "" : "_replay";
                out.put("resume_s" + k, Report.round(Samples.median(running) / 1000, 3));
                out.put("resume_s" + k + "_min", Report.round(java.util.Arrays.stream(running).min().orElse(0) / 1000, 3));
                out.put("resume_s" + k + "_max", Report.round(java.util.Arrays.stream(running).max().orElse(0) / 1000, 3));
                out.put("jvm_to_main_s" + k, Report.round(Samples.median(main) / 1000, 3));
                out.put("jvm_to_node_up_s" + k, Report.round(Samples.median(node) / 1000, 3));
                double[] recovery = new double[s.reps()];
                double[] resend = new double[s.reps()];
                for (int i = 0; i < s.reps(); i++) {
                    recovery[i] = recovered[i] - node[i];
                    resend[i] = running[i] - recovered[i];
                }
                out.put("node_up_to_running_s" + k, Report.round((Samples.median(running) - Samples.median(node)) / 1000, 3));
                out.put("recovery_s" + k, Report.round(Samples.median(recovery) / 1000, 3)); // node up to the orchestrator resumed
                out.put("resend_s" + k, Report.round(Samples.median(resend) / 1000, 3)); // resumed to every in-flight sub-agent asking
            }
            out.put("reps", s.reps());
            out.put("cores", Runtime.getRuntime().availableProcessors());
            out.put("java", Runtime.version().toString());
            return out;
        } finally {
            SwarmBenchmark.deleteTree(root);
        }
    }
}
