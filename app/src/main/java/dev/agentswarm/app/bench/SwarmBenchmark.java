package dev.agentswarm.app.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.app.JournalDatabase;
import dev.agentswarm.app.SwarmNode;
import dev.agentswarm.app.SwarmRun;
import dev.agentswarm.app.cli.Report;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.tool.FinishTool;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.core.tool.ToolContext;
import dev.agentswarm.core.tool.ToolRegistry;
import dev.agentswarm.core.tool.ToolSpecs;
import dev.agentswarm.orchestrator.swarm.Orchestrator;
import dev.agentswarm.orchestrator.swarm.SwarmResult;
import dev.agentswarm.orchestrator.swarm.SwarmSettings;
import dev.agentswarm.orchestrator.swarm.SwarmTrace;
import dev.agentswarm.workers.EpisodeServices;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * The swarm workload of the peers (langchain4j-agentic's parallel mapper, LangGraph.js's Send): one
 * orchestrator spawns {@code subagents} sub-agents in one plan; each makes {@code turns} calls of a
 * tool that takes {@code tool-ms}, then answers; the orchestrator checks every answer came and
 * finishes. The ideal wall time is the critical path, {@code turns × tool-ms}; the serial sum is
 * {@code subagents × turns × tool-ms}. Measured as the median of {@code reps} whole swarms (orchestrator
 * episode, plan check, 100 sub-agent episodes, trace) after {@code warmup} swarms, on one node.
 */
public final class SwarmBenchmark {

    /** {@code journaled}: the swarms journal as {@code swarm run} does by default (H2 in a temporary folder). */
    public record Settings(int subAgents, int turns, int toolMs, int warmup, int reps, boolean blockingTool, boolean traced,
                           boolean journaled) {
        public Settings {
            if (subAgents < 1 || turns < 1 || toolMs < 1 || warmup < 0 || reps < 1) {
                throw new IllegalArgumentException("need subagents >= 1, turns >= 1, tool-ms >= 1, warmup >= 0, reps >= 1");
            }
        }
    }

    private SwarmBenchmark() {}

    /** The tool every sub-agent calls: it takes tool-ms (0: answers at once), blocking a thread of its own pool (as the peers' tools do) or not. */
    static final class WorkTool implements Tool {
        private static final ToolSpec SPEC = ToolSpecs.oneString("work", "Does one step of work.", "step", "Which step.");
        private final long millis;
        private final ExecutorService blocking;
        final AtomicLong calls = new AtomicLong();

        WorkTool(long millis, boolean block) {
            this.millis = millis;
            this.blocking = block ? Executors.newCachedThreadPool(r -> {
                Thread t = new Thread(r, "bench-tool");
                t.setDaemon(true);
                return t;
            }) : null;
        }

        @Override
        public ToolSpec spec() {
            return SPEC;
        }

        /** It only waits: the swarm bench measures the journal as idempotent tools use it. */
        @Override
        public boolean idempotent(JsonNode arguments) {
            return true;
        }

        @Override
        public CompletionStage<String> invoke(JsonNode arguments, ToolContext context) {
            calls.incrementAndGet();
            String step = ToolSpecs.string(arguments, "step");
            if (millis == 0) return CompletableFuture.completedFuture("done " + step);
            if (blocking == null) {
                // Completed on the timer's thread, as an I/O client completes on its event loop.
                return CompletableFuture.supplyAsync(() -> "done " + step,
                        CompletableFuture.delayedExecutor(millis, TimeUnit.MILLISECONDS, Runnable::run));
            }
            return CompletableFuture.supplyAsync(() -> {
                try {
                    Thread.sleep(millis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return "done " + step;
            }, blocking);
        }
    }

    /**
     * The orchestrator plans every sub-agent at once and finishes with the number of answers it got; a
     * sub-agent makes {@code turns} tool calls, then answers "finished".
     */
    private static Policy script(int subAgents, int turns) {
        return script(subAgents, turns, (i, req) -> CompletableFuture.completedFuture(completion(req, "finished")));
    }

    /** The same, where {@code afterTurns} decides what sub-agent {@code i} gets once its tool calls are made. */
    static Policy script(int subAgents, int turns, BiFunction<Integer, CompletionRequest, CompletableFuture<Completion>> afterTurns) {
        StringBuilder plan = new StringBuilder("<tool_call>{\"name\": \"spawn_subagents\", \"arguments\": {\"subtasks\": [");
        for (int i = 0; i < subAgents; i++) {
            if (i > 0) plan.append(", ");
            plan.append("{\"id\": \"s").append(i).append("\", \"goal\": \"Do ").append(turns).append(" steps of work\", \"tools\": [\"work\"]}");
        }
        plan.append("]}}</tool_call>");
        String spawn = plan.toString();
        return req -> {
            String agent = Orchestrator.agentOf(req.episodeId());
            String text;
            if (agent.equals("root")) {
                if (req.turn() == 1) {
                    text = spawn;
                } else {
                    String obs = req.messages().get(req.messages().size() - 1).content();
                    int answers = obs.split("answer: finished", -1).length - 1;
                    text = "<tool_call>{\"name\": \"finish\", \"arguments\": {\"answer\": \"" + answers + " answers\"}}</tool_call>";
                }
            } else if (req.turn() <= turns) {
                text = "<tool_call>{\"name\": \"work\", \"arguments\": {\"step\": \"" + req.turn() + "\"}}</tool_call>";
            } else {
                return afterTurns.apply(Integer.parseInt(agent.substring(agent.lastIndexOf('/') + 2)), req);
            }
            return CompletableFuture.completedFuture(completion(req, text));
        };
    }

    /** A scripted completion of {@code text}, its prompt counted at 4 characters a token. */
    static Completion completion(CompletionRequest req, String text) {
        int prompt = 0;
        for (Message m : req.messages()) prompt += m.content().length() / 4;
        return Completion.ofText(text, prompt, Math.max(1, text.length() / 4));
    }

    /**
     * A bench swarm's settings: {@code subAgents} at once, each of {@code turns} tool turns and its answer,
     * no budget in the way; {@code more} over them.
     */
    static Config config(int subAgents, int turns, Config more) {
        return more.withFallback(ConfigFactory.parseString("""
                agentswarm.swarm.max-subagents = %d
                agentswarm.swarm.max-parallel = %d
                agentswarm.swarm.max-turns = 100000000
                agentswarm.swarm.max-tokens = 1000000000
                agentswarm.swarm.deadline = 10 minutes
                agentswarm.episode.max-turns = %d
                """.formatted(subAgents, subAgents, turns + 2))).withFallback(SwarmNode.loadConfig(null)).resolve();
    }

    public static Map<String, Object> run(Settings s, Consumer<String> log) throws Exception {
        Config config = config(s.subAgents(), s.turns(), ConfigFactory.empty());
        Path journalDir = s.journaled() ? Files.createTempDirectory("swarm-bench-journal") : null;
        if (journalDir != null) config = JournalDatabase.settings(config, journalDir);
        WorkTool work = new WorkTool(s.toolMs(), s.blockingTool());
        SwarmSettings settings = SwarmSettings.fromConfig(config, Set.of("work"));
        EpisodeServices services = new EpisodeServices(script(s.subAgents(), s.turns()), ToolRegistry.of(work, new FinishTool()));
        String expected = s.subAgents() + " answers";
        try (SwarmNode node = SwarmNode.startEmbedded(config, services)) {
            if (journalDir != null) JournalDatabase.createSchema(node.system(), config);
            for (int i = 0; i < s.warmup(); i++) {
                Timed w = once(node, settings, "w" + i, s.traced(), s.journaled());
                check(w.result(), expected);
                log.accept(String.format("warmup %d: %.1f ms", i + 1, w.wallNanos() / 1e6));
            }
            var pools = ManagementFactory.getMemoryPoolMXBeans().stream().filter(p -> p.getType() == MemoryType.HEAP).toList();
            pools.forEach(MemoryPoolMXBean::resetPeakUsage);
            long callsBefore = work.calls.get();
            var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            long cpu0 = os.getProcessCpuTime();
            double[] wall = new double[s.reps()];
            double[][] phases = new double[4][s.reps()]; // plan accepted, last sub-agent started, last finished, answered
            SwarmResult last = null;
            for (int i = 0; i < s.reps(); i++) {
                Timed t = once(node, settings, "r" + i, s.traced(), s.journaled());
                last = t.result();
                for (int p = 0; p < phases.length; p++) phases[p][i] = t.phasesMs()[p];
                wall[i] = t.wallNanos() / 1e6;
                check(last, expected);
                log.accept(String.format("rep %d: %.1f ms", i + 1, wall[i]));
            }
            double cpuPerRep = (os.getProcessCpuTime() - cpu0) / 1e6 / s.reps();
            long peakHeap = pools.stream().mapToLong(p -> p.getPeakUsage().getUsed()).sum();
            long calls = work.calls.get() - callsBefore;
            if (calls != (long) s.reps() * s.subAgents() * s.turns()) {
                throw new IllegalStateException("tool calls " + calls + " != " + (long) s.reps() * s.subAgents() * s.turns());
            }
            double[] sorted = wall.clone();
            Arrays.sort(sorted);
            double median = sorted[sorted.length / 2];
            double ideal = (double) s.turns() * s.toolMs();
            double serial = (double) s.subAgents() * s.turns() * s.toolMs();
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("framework", "agentswarm");
            out.put("workload", "swarm");
            out.put("subagents", s.subAgents());
            out.put("turns", s.turns());
            out.put("tool_ms", s.toolMs());
            out.put("tool", s.blockingTool() ? "blocking" : "async");
            out.put("traced", s.traced());
            out.put("journal", s.journaled() ? "h2" : "none");
            out.put("wall_ms", Report.round(median, 2));
            out.put("ideal_ms", ideal);
            out.put("serial_ms", serial);
            out.put("wall_over_ideal", Report.round(median / ideal, 4));
            out.put("wall_over_serial", Report.round(median / serial, 5));
            out.put("overhead_ms_per_subagent", Report.round((median - ideal) / s.subAgents(), 4));
            out.put("wall_ms_min", Report.round(sorted[0], 2));
            out.put("wall_ms_max", Report.round(sorted[sorted.length - 1], 2));
            out.put("cpu_ms_per_swarm", Report.round(cpuPerRep, 1));
            if (journalDir != null) { // database writes: each append of the orchestrator's is one entry
                out.put("journal_entries_per_swarm", Report.round((double) JournalDatabase.entries(config, "swarm|r") / s.reps(), 1));
            }
            if (s.traced()) { // where the time beyond the ideal goes (medians, ms from the orchestrator's start), read from the trace
                out.put("plan_ms", Report.round(Samples.median(phases[0]), 2));
                out.put("last_subagent_started_ms", Report.round(Samples.median(phases[1]), 2));
                out.put("last_subagent_finished_ms", Report.round(Samples.median(phases[2]), 2));
                out.put("answered_ms", Report.round(Samples.median(phases[3]), 2));
            }
            double toolSum = 0;
            int toolCalls = 0;
            for (SwarmResult.SubAgent a : last.subAgents()) {
                for (var turn : a.trajectories().get(0).turns()) {
                    if (!turn.isAssistant()) {
                        toolSum += turn.timing().durationNanos() / 1e6;
                        toolCalls++;
                    }
                }
            }
            out.put("tool_call_ms_mean", Report.round(toolSum / toolCalls, 3)); // as the episode saw it: sleep, overshoot, two thread hand-offs
            out.put("critical_steps", last.metrics().criticalSteps());
            out.put("total_steps", last.metrics().totalSteps());
            out.put("parallelism", Report.round(last.metrics().parallelism(), 2));
            out.put("reps", s.reps());
            out.put("warmup", s.warmup());
            out.put("peak_heap_bytes", peakHeap);
            out.put("cores", Runtime.getRuntime().availableProcessors());
            out.put("java", Runtime.version().toString());
            return out;
        } finally {
            if (journalDir != null) deleteTree(journalDir);
        }
    }

    /** Deletes {@code dir} and everything in it (a bench's temporary folder); nothing when it is not there. */
    public static void deleteTree(Path dir) throws java.io.IOException {
        if (!Files.exists(dir)) return;
        try (var all = Files.walk(dir)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }

    /** A swarm's result and its wall time: from starting the orchestrator to its answer (the trace is written after, untimed). */
    private record Timed(SwarmResult result, long wallNanos, double[] phasesMs) {}

    private static Timed once(SwarmNode node, SwarmSettings settings, String runId, boolean traced, boolean journaled) throws Exception {
        CompletableFuture<SwarmResult> done = new CompletableFuture<>();
        try (SwarmTrace trace = traced ? SwarmTrace.inMemory() : SwarmTrace.none()) {
            // Stamped on the thread that delivers the answer, not when this thread wakes up.
            CompletableFuture<Long> answeredAt = done.thenApply(r -> System.nanoTime());
            long start = System.nanoTime();
            SwarmRun.start(node, settings, runId, Task.of("bench", "Run the swarm"), trace, done,
                    journaled ? SwarmRun.Journaling.NEW : SwarmRun.Journaling.NONE);
            long answered = answeredAt.get(10, TimeUnit.MINUTES);
            SwarmResult r = done.join();
            double base = (start - trace.startNanos()) / 1e6;
            double plan = 0, lastStart = 0, lastFinish = 0;
            for (var e : trace.events()) {
                double t = e.path("t_ms").asDouble() - base;
                String kind = e.path("kind").asText();
                boolean sub = !e.path("agent").asText().equals("root");
                if (kind.equals("plan")) plan = t;
                if (sub && kind.equals("agent_started")) lastStart = Math.max(lastStart, t);
                if (sub && kind.equals("agent_finished")) lastFinish = Math.max(lastFinish, t);
            }
            return new Timed(r, answered - start, new double[] {plan, lastStart, lastFinish, (answered - start) / 1e6});
        }
    }


    private static void check(SwarmResult r, String expected) {
        if (!expected.equals(r.answer())) {
            throw new IllegalStateException("the swarm answered " + r.answer() + " (" + r.stopReason() + ", missing " + r.missing()
                    + "), expected " + expected);
        }
    }

}
