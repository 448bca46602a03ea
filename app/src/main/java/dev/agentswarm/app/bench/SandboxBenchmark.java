package dev.agentswarm.app.bench;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import dev.agentswarm.app.EpisodeRuns;
import dev.agentswarm.app.cli.Report;
import dev.agentswarm.sandbox.Execution;
import dev.agentswarm.sandbox.Language;
import dev.agentswarm.sandbox.Sandbox;
import dev.agentswarm.sandbox.SandboxSession;
import dev.agentswarm.sandbox.SandboxSettings;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import me.tongfei.progressbar.ProgressBar;

/**
 * The cost of running model-written code: a one-line Python program in a fresh sandbox, as a cell
 * of a warm stateful session, and without isolation, timed in alternation so the ratios hold on a
 * noisy machine; then calls per second with 1, 2, 4 and 8 callers at once, each caller its own
 * session (fresh runs alike); and, on request, a Java source program in a fresh sandbox.
 */
public final class SandboxBenchmark {

    static final String PROGRAM = "print(sum(i * i for i in range(100)))";
    static final String JAVA_PROGRAM = "cat > Main.java <<'EOF'\npublic class Main { public static void main(String[] a) { "
            + "long s = 0; for (int i = 0; i < 100; i++) s += i * i; System.out.println(s); } }\nEOF\n"
            + System.getProperty("java.home") + "/bin/java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData -Xmx64m -XX:CompressedClassSpaceSize=64m "
            + "-XX:ReservedCodeCacheSize=32m -XX:MaxMetaspaceSize=96m Main.java";
    static final int[] CONCURRENCY = {1, 2, 4, 8};

    private SandboxBenchmark() {}

    /** @param sandbox the {@code agentswarm.sandbox} block; the unisolated and JDK variants are derived from it */
    public static Map<String, Object> run(Config sandbox, int calls, boolean java, Consumer<String> log) {
        SandboxSettings settings = SandboxSettings.fromConfig(sandbox);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("isolation", settings.isolation().name().toLowerCase(Locale.ROOT));
        try (Sandbox isolated = Sandbox.create(settings);
             Sandbox open = Sandbox.create(SandboxSettings.fromConfig(sandbox.withValue("isolation", ConfigValueFactory.fromAnyRef("none"))
                     .withValue("warm-sessions", ConfigValueFactory.fromAnyRef(0))))) {
            SandboxSession session = isolated.openSession().toCompletableFuture().join();
            for (int i = 0; i < 5; i++) { // process caches, JIT: untimed
                check(isolated.run(Language.PYTHON, PROGRAM, "").toCompletableFuture().join());
                check(open.run(Language.PYTHON, PROGRAM, "").toCompletableFuture().join());
                check(session.run(Language.PYTHON, PROGRAM).toCompletableFuture().join());
            }
            long[] fresh = new long[calls];
            long[] stateful = new long[calls];
            long[] bare = new long[calls];
            try (ProgressBar progress = EpisodeRuns.progressBar("sandbox latency", calls)) {
                for (int i = 0; i < calls; i++) {
                    fresh[i] = timed(() -> isolated.run(Language.PYTHON, PROGRAM, "").toCompletableFuture().join());
                    stateful[i] = timed(() -> session.run(Language.PYTHON, PROGRAM).toCompletableFuture().join());
                    bare[i] = timed(() -> open.run(Language.PYTHON, PROGRAM, "").toCompletableFuture().join());
                    progress.step();
                }
            }
            session.close();
            percentiles(out, "fresh", fresh);
            percentiles(out, "stateful", stateful);
            percentiles(out, "unisolated", bare);
            out.put("fresh_over_unisolated", Report.round((Double) out.get("fresh_p50_ms") / (Double) out.get("unisolated_p50_ms"), 2));

            Map<String, Object> statefulRate = new LinkedHashMap<>();
            Map<String, Object> freshRate = new LinkedHashMap<>();
            for (int c : CONCURRENCY) {
                List<SandboxSession> sessions = new ArrayList<>();
                for (int i = 0; i < c; i++) sessions.add(isolated.openSession().toCompletableFuture().join());
                for (SandboxSession s : sessions) check(s.run(Language.PYTHON, PROGRAM).toCompletableFuture().join());
                statefulRate.put(Integer.toString(c), rate(calls, c, i -> sessions.get(i).run(Language.PYTHON, PROGRAM)));
                sessions.forEach(SandboxSession::close);
                freshRate.put(Integer.toString(c), rate(calls, c, i -> isolated.run(Language.PYTHON, PROGRAM, "")));
                log.accept("concurrency " + c + ": " + statefulRate.get(Integer.toString(c)) + " stateful calls/s, "
                        + freshRate.get(Integer.toString(c)) + " fresh runs/s");
            }
            out.put("calls_per_s", statefulRate);
            out.put("fresh_runs_per_s", freshRate);
        }
        if (java) javaLatency(sandbox, Math.max(5, calls / 20), out, log);
        return out;
    }

    /** A Java source program (the JDK's single-file launcher: compile, then run) in a fresh sandbox. */
    private static void javaLatency(Config sandbox, int runs, Map<String, Object> out, Consumer<String> log) {
        String jdkConfig = "/etc/java-" + Runtime.version().feature() + "-openjdk";
        List<String> binds = new ArrayList<>(sandbox.getStringList("ro-binds"));
        binds.add(jdkConfig);
        SandboxSettings withJdk = SandboxSettings.fromConfig(sandbox.withValue("ro-binds", ConfigValueFactory.fromIterable(binds))
                .withValue("memory", ConfigValueFactory.fromAnyRef(Math.max(sandbox.getBytes("memory"), 1L << 30)))
                .withValue("warm-sessions", ConfigValueFactory.fromAnyRef(0)));
        try (Sandbox s = Sandbox.create(withJdk)) {
            check(s.run(Language.BASH, JAVA_PROGRAM, "").toCompletableFuture().join());
            long[] t = new long[runs];
            for (int i = 0; i < runs; i++) t[i] = timed(() -> s.run(Language.BASH, JAVA_PROGRAM, "").toCompletableFuture().join());
            percentiles(out, "java_source", t);
            log.accept("java source program: p50 " + out.get("java_source_p50_ms") + " ms");
        }
    }

    /** Calls/s with {@code callers} callers each making its share of {@code calls}, one after another. */
    private static double rate(int calls, int callers, java.util.function.IntFunction<java.util.concurrent.CompletionStage<Execution>> call) {
        int each = Math.max(1, calls / callers);
        long t0 = System.nanoTime();
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int c = 0; c < callers; c++) {
            int caller = c;
            all.add(CompletableFuture.runAsync(() -> {
                for (int i = 0; i < each; i++) check(call.apply(caller).toCompletableFuture().join());
            }));
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
        return Report.round(each * callers / ((System.nanoTime() - t0) / 1e9), 1);
    }

    private static long timed(java.util.function.Supplier<Execution> call) {
        long t0 = System.nanoTime();
        check(call.get());
        return System.nanoTime() - t0;
    }

    private static void check(Execution e) {
        if (!e.ok()) throw new IllegalStateException("the benchmark program failed: " + e);
    }

    private static void percentiles(Map<String, Object> out, String name, long[] nanos) {
        long[] s = TurnClock.sorted(nanos, nanos.length);
        out.put(name + "_p50_ms", Report.round(TurnClock.percentileMicros(s, 50) / 1000, 2));
        out.put(name + "_p99_ms", Report.round(TurnClock.percentileMicros(s, 99) / 1000, 2));
    }
}
