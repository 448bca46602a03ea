package dev.agentswarm.app.bench;

import com.typesafe.config.Config;
import dev.agentswarm.app.BatchRunner;
import dev.agentswarm.app.DeadLetterCounter;
import dev.agentswarm.app.EpisodeRuns;
import dev.agentswarm.app.SwarmNode;
import dev.agentswarm.app.cli.Report;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.tool.ArithmeticExpression;
import dev.agentswarm.workers.EpisodeServices;
import java.lang.management.ManagementFactory;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import me.tongfei.progressbar.ProgressBar;
import org.apache.pekko.actor.typed.Props;

/**
 * {@code swarm bench episodes}: many scripted calculator episodes of a fixed number of turns on
 * an embedded node, through the real path (sharding region → worker entity → one actor per
 * episode → policy → format parser → calculator). Measures throughput, CPU per turn, the
 * runtime's own time per turn, heap per in-flight episode and, with a model latency, how close
 * the swarm gets to the latency-bound ideal. Every answer is checked; a lost episode or a dead
 * letter fails the run.
 */
public final class EpisodesBenchmark {

    public record Settings(int n, int turns, int inflight, long latencyMs, String format, int warmup, int heapProbe) {
        public Settings {
            if (n <= 0 || turns < 2 || inflight <= 0 || latencyMs < 0 || warmup < 0 || heapProbe < 0) {
                throw new IllegalArgumentException("need n > 0, turns >= 2, inflight > 0, latency >= 0, warmup >= 0, heap-probe >= 0");
            }
            if (!format.equals("hermes") && !format.equals("openai")) {
                throw new IllegalArgumentException("the episodes benchmark scripts the hermes or openai format, not " + format);
            }
        }
    }

    private EpisodesBenchmark() {}

    public static Map<String, Object> run(Settings s, Consumer<String> log) throws Exception {
        Config config = SwarmNode.loadConfig(null);
        TurnClock clock = new TurnClock(s.n(), s.turns());
        ScriptedCalculatorModel model = new ScriptedCalculatorModel(s.turns(), s.format(), s.latencyMs() * 1_000_000L, clock);
        EpisodeSpec spec = EpisodeSpec.fromConfig(config.getConfig("agentswarm.episode"))
                .withFormat(s.format()).withTools(List.of("calculator"))
                .withLimits(s.turns() + 1, 1_000_000, 1_000_000, TimeUnit.MINUTES.toMillis(10), 30_000);

        try (model; SwarmNode node = SwarmNode.startEmbedded(config, new EpisodeServices(model, EpisodeRuns.builtInTools()))) {
            AtomicLong deadLetters = DeadLetterCounter.attach(node.system());
            if (s.warmup() > 0) {
                long t = System.nanoTime();
                String[] expected = new String[s.warmup()];
                runBatch(node, jobs("w", s.warmup(), s.turns(), spec, expected), s.inflight(),
                        tr -> check(tr, s.turns(), expected), null);
                log.accept(String.format("warm-up: %d episodes in %.0f ms", s.warmup(), (System.nanoTime() - t) / 1e6));
            }

            long[] overhead = new long[s.n() * (s.turns() - 1)];
            int[] overheadCount = {0};
            long[] wrong = {0};
            var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            long cpu0 = os.getProcessCpuTime();
            long t0 = System.nanoTime();
            long answered;
            try (ProgressBar bar = EpisodeRuns.progressBar("episodes", s.n())) {
                String[] expected = new String[s.n()];
                answered = runBatch(node, jobs("b", s.n(), s.turns(), spec, expected), s.inflight(), tr -> {
                    if (!check(tr, s.turns(), expected)) {
                        wrong[0]++;
                        return;
                    }
                    int ep = ScriptedCalculatorModel.episodeIndex(tr.episodeId());
                    for (int turn = 1; turn < s.turns(); turn++) {
                        overhead[overheadCount[0]++] = clock.overheadNanos(ep, turn, toolNanos(tr, turn));
                    }
                }, bar);
            }
            long wallNs = System.nanoTime() - t0;
            long cpuNs = os.getProcessCpuTime() - cpu0;

            // Held at the first policy call: what the runtime itself costs per episode (its trajectory is still empty).
            long heapPerEpisode = s.heapProbe() > 0 ? heapPerInflightEpisode(node, model, s, spec, 1, "p", log) : -1;
            // Held mid-episode: the same plus the turns recorded so far.
            int midTurn = Math.max(2, (s.turns() + 1) / 2);
            long heapMid = s.heapProbe() > 0 ? heapPerInflightEpisode(node, model, s, spec, midTurn, "q", log) : -1;

            long[] sorted = TurnClock.sorted(overhead, overheadCount[0]);
            double eps = s.n() / (wallNs / 1e9);
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("framework", "agentswarm");
            out.put("workload", "episodes");
            out.put("n", s.n());
            out.put("turns", s.turns());
            out.put("format", s.format());
            out.put("inflight", s.inflight());
            out.put("latency_ms", s.latencyMs());
            out.put("wall_ms", Report.round(wallNs / 1e6, 2));
            out.put("episodes_per_s", Report.round(eps, 1));
            out.put("mean_us_per_turn", Report.round(wallNs / 1e3 / ((double) s.n() * s.turns()), 3));
            out.put("cpu_us_per_turn", Report.round(cpuNs / 1e3 / ((double) s.n() * s.turns()), 3));
            out.put("overhead_us_p50", Report.round(TurnClock.percentileMicros(sorted, 50), 2));
            out.put("overhead_us_p99", Report.round(TurnClock.percentileMicros(sorted, 99), 2));
            out.put("heap_bytes_per_episode", heapPerEpisode);
            out.put("heap_bytes_per_episode_mid", heapMid);
            double ideal = s.latencyMs() > 0 ? Math.min(s.n(), s.inflight()) / (s.turns() * s.latencyMs() / 1000.0) : Double.NaN;
            out.put("latency_bound_efficiency", s.latencyMs() > 0 ? Report.round(eps / ideal, 4) : null);
            out.put("wrong_answers", wrong[0]);
            out.put("dead_letters", deadLetters.get());
            out.put("lost_episodes", s.n() - answered);
            out.put("cores", Runtime.getRuntime().availableProcessors());
            out.put("max_heap_mb", Runtime.getRuntime().maxMemory() >> 20);
            out.put("java", Runtime.version().toString());
            if (wrong[0] > 0) throw new IllegalStateException(wrong[0] + " episodes gave a wrong answer: " + out);
            if (answered != s.n()) throw new IllegalStateException((s.n() - answered) + " episodes were lost: " + out);
            if (deadLetters.get() > 0) throw new IllegalStateException(deadLetters.get() + " dead letters: " + out);
            return out;
        }
    }

    /** Holds {@code heapProbe} episodes in flight at policy turn {@code parkTurn} and measures the live heap they add. */
    private static long heapPerInflightEpisode(SwarmNode node, ScriptedCalculatorModel model, Settings s, EpisodeSpec spec,
                                               int parkTurn, String prefix, Consumer<String> log) throws Exception {
        int k = s.heapProbe();
        String[] expected = new String[k];
        Iterator<BatchRunner.Job> jobs = jobs(prefix, k, s.turns(), spec, expected);
        long baseline = liveHeap();
        int parkedBefore = model.parkedCount();
        model.parkAt(parkTurn);
        CompletableFuture<Long> done = new CompletableFuture<>();
        node.system().systemActorOf(BatchRunner.create(node.workerRegion(), node.workerEntities(), jobs, k,
                tr -> check(tr, s.turns(), expected), done), "heap-probe-" + prefix, Props.empty());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (model.parkedCount() - parkedBefore < k) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("only " + (model.parkedCount() - parkedBefore) + " of " + k + " episodes parked");
            }
            Thread.sleep(5);
        }
        long live = liveHeap();
        model.release();
        done.get(2, TimeUnit.MINUTES);
        long perEpisode = Math.max(0, live - baseline) / k;
        log.accept(String.format("heap: %d episodes held in flight at policy turn %d: %.1f MB live over baseline → %d B per episode",
                k, parkTurn, (live - baseline) / 1e6, perEpisode));
        return perEpisode;
    }

    private static long runBatch(SwarmNode node, Iterator<BatchRunner.Job> jobs, int inflight, Consumer<Trajectory> each,
                                 ProgressBar bar) throws Exception {
        CompletableFuture<Long> done = new CompletableFuture<>();
        node.system().systemActorOf(BatchRunner.create(node.workerRegion(), node.workerEntities(), jobs, inflight, t -> {
            each.accept(t);
            if (bar != null) bar.step();
        }, done), "bench-" + System.nanoTime(), Props.empty());
        return done.get(30, TimeUnit.MINUTES);
    }

    /** Episodes {@code prefix0…} with their expected answers written into {@code expected} as they are made. */
    private static Iterator<BatchRunner.Job> jobs(String prefix, int n, int turns, EpisodeSpec spec, String[] expected) {
        return new Iterator<>() {
            int i;

            @Override
            public boolean hasNext() {
                return i < n;
            }

            @Override
            public BatchRunner.Job next() {
                int ep = i++;
                String id = prefix + ep;
                expected[ep] = expectedAnswer(ep, turns);
                Task task = new Task("t" + ep, "Task #" + ep + ": compute the running result with the calculator.",
                        expected[ep], Map.of());
                return new BatchRunner.Job(id, id, task, spec);
            }
        };
    }

    static String expectedAnswer(int episode, int turns) {
        return "The answer is " + ArithmeticExpression.format(
                ArithmeticExpression.evaluate(ScriptedCalculatorModel.expressionFor(episode, turns - 1)));
    }

    private static boolean check(Trajectory t, int turns, String[] expected) {
        return t.stopReason() == StopReason.FINAL_ANSWER && t.stats().turns() == turns
                && t.stats().toolSuccesses() == turns - 1
                && expected[ScriptedCalculatorModel.episodeIndex(t.episodeId())].equals(t.finalAnswer());
    }

    /** Tool time of policy turn {@code turn}: the observation turn after it (calls run concurrently: the longest). */
    private static long toolNanos(Trajectory t, int turn) {
        long max = 0;
        for (ToolResult r : t.turns().get(2 * turn - 1).toolResults()) max = Math.max(max, r.durationNanos());
        return max;
    }

    private static long liveHeap() throws InterruptedException {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
            used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return used;
    }

}
