package dev.agentswarm.policy.sampling;

import java.util.List;

/**
 * Finds the first stop sequence in text that grows a token at a time, looking only at the part
 * that could contain a new match: the freshly added text plus one stop length back.
 */
public final class StopSequences {

    private final List<String> stops;
    private final int longest;

    public StopSequences(List<String> stops) {
        this.stops = stops.stream().filter(s -> s != null && !s.isEmpty()).toList();
        this.longest = this.stops.stream().mapToInt(String::length).max().orElse(0);
    }

    /**
     * The index in {@code text} where the earliest stop sequence begins, considering only matches
     * that end after {@code newFrom} (where the latest piece was appended); -1 when none.
     */
    public int find(CharSequence text, int newFrom) {
        if (stops.isEmpty()) return -1;
        String s = text.toString();
        int from = Math.max(0, newFrom - longest + 1);
        int best = -1;
        for (String stop : stops) {
            int i = s.indexOf(stop, from);
            if (i >= 0 && (best < 0 || i < best)) best = i;
        }
        return best;
    }

    public boolean isEmpty() {
        return stops.isEmpty();
    }
}
