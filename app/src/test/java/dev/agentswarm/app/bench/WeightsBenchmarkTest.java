package dev.agentswarm.app.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.app.SwarmNode;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The publish → served measurement on a learner node and two worker nodes in one JVM. By default
 * one small size, quickly; {@code -Dweights.bench.mb=10,100 -Dweights.bench.rounds=5} measures the
 * sizes the cluster benchmark reports.
 */
class WeightsBenchmarkTest {

    @Test
    void weightsReachEveryWorkerNodeAndTheTimeIsMeasured() throws Exception {
        int[] megabytes = Arrays.stream(System.getProperty("weights.bench.mb", "10").split(",")).mapToInt(Integer::parseInt).toArray();
        int rounds = Integer.getInteger("weights.bench.rounds", 2);
        int workers = Integer.getInteger("weights.bench.workers", 2);
        try (WeightsBenchmark.Cluster c = WeightsBenchmark.start(SwarmNode.loadConfig(null), workers)) {
            for (int mb : megabytes) {
                double s = c.publishToServed(mb * 1_000_000, rounds, System.out::println);
                assertTrue(s > 0 && s < 30, mb + " MB took " + s + " s");
            }
        }
    }
}
