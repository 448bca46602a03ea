package dev.agentswarm.app.bench;

import com.typesafe.config.Config;
import dev.agentswarm.app.cli.Report;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.environments.Split;
import dev.agentswarm.environments.SuiteCatalog;
import dev.agentswarm.environments.multihop.MultihopSuite;
import dev.agentswarm.environments.multihop.PassageIndex;
import dev.agentswarm.environments.multihop.QaDatasetSuite;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The cost of the multi-hop suites' {@code search} tool on one thread: building the generated
 * world's index once, building a MuSiQue question's own index (what every MuSiQue or HotpotQA
 * episode pays when it opens), and BM25 queries on each, the questions themselves as queries,
 * after one untimed pass.
 */
public final class SearchBenchmark {

    private SearchBenchmark() {}

    public static Map<String, Object> run(Config root, int queries, int rounds, Consumer<String> log) {
        Map<String, Object> out = new LinkedHashMap<>();
        MultihopSuite world = (MultihopSuite) SuiteCatalog.one(root, MultihopSuite.NAME);
        List<Task> questions = world.tasks(Split.TRAIN, queries);
        var pages = world.corpus(questions.get(0));
        long[] builds = new long[rounds];
        for (int r = 0; r < rounds; r++) {
            long t0 = System.nanoTime();
            new PassageIndex(pages, false).close();
            builds[r] = System.nanoTime() - t0;
        }
        out.put("world_pages", pages.size());
        out.put("world_build_ms", Report.round(TurnClock.sorted(builds, rounds)[rounds / 2] / 1e6, 2));
        try (PassageIndex index = new PassageIndex(pages, false)) {
            for (Task q : questions) index.search(q.prompt(), world.topK()); // JIT warm-up, untimed
            long[] t = new long[questions.size() * rounds];
            int n = 0;
            for (int r = 0; r < rounds; r++) {
                for (Task q : questions) {
                    long t0 = System.nanoTime();
                    index.search(q.prompt(), world.topK());
                    t[n++] = System.nanoTime() - t0;
                }
            }
            put(out, "world_search", t, n);
        }
        log.accept("world: " + pages.size() + " pages, " + questions.size() + " questions × " + rounds + " rounds");

        QaDatasetSuite musique = (QaDatasetSuite) SuiteCatalog.one(root, QaDatasetSuite.MUSIQUE);
        List<Task> dev;
        try {
            dev = musique.tasks(Split.HELDOUT, queries);
        } catch (IllegalArgumentException e) {
            log.accept("musique skipped: " + e.getMessage());
            return out;
        }
        for (Task q : dev) {
            try (PassageIndex index = new PassageIndex(musique.corpus(q), false)) {
                index.search(q.prompt(), musique.topK()); // JIT warm-up, untimed
            }
        }
        long[] build = new long[dev.size() * rounds];
        long[] search = new long[dev.size() * rounds];
        int n = 0;
        for (int r = 0; r < rounds; r++) {
            for (Task q : dev) {
                long t0 = System.nanoTime();
                try (PassageIndex index = new PassageIndex(musique.corpus(q), false)) {
                    long t1 = System.nanoTime();
                    index.search(q.prompt(), musique.topK());
                    search[n] = System.nanoTime() - t1;
                    build[n++] = t1 - t0;
                }
            }
        }
        out.put("musique_questions", dev.size());
        put(out, "musique_build", build, n);
        put(out, "musique_search", search, n);
        return out;
    }

    private static void put(Map<String, Object> out, String name, long[] nanos, int n) {
        long[] s = TurnClock.sorted(nanos, n);
        out.put(name + "_us_p50", Report.round(TurnClock.percentileMicros(s, 50), 1));
        out.put(name + "_us_p99", Report.round(TurnClock.percentileMicros(s, 99), 1));
        long total = 0;
        for (int i = 0; i < n; i++) total += nanos[i];
        out.put(name + "_per_s", Report.round(n / (total / 1e9), 0));
    }
}
