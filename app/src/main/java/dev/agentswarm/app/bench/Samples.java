package dev.agentswarm.app.bench;

import java.util.Arrays;

/** Summaries of repeated measurements. */
final class Samples {

    private Samples() {}

    /** The median of {@code values} (the upper one of an even count), which stay as given. */
    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
