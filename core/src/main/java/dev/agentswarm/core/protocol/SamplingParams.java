package dev.agentswarm.core.protocol;

import com.typesafe.config.Config;
import dev.agentswarm.core.CborSerializable;
import java.util.ArrayList;
import java.util.List;

/**
 * How to sample a completion. {@code topK <= 0} means no top-k cut; {@code seed == null} means
 * not reproducible. Stop sequences are extended by the tool-call format's own (e.g. ReAct's
 * {@code Observation:}).
 */
public record SamplingParams(double temperature, double topP, int topK, int maxTokens, List<String> stop, Long seed)
        implements CborSerializable {

    public static final SamplingParams DEFAULT = new SamplingParams(1.0, 1.0, 0, 512, List.of(), null);

    public SamplingParams {
        if (!(temperature >= 0)) throw new IllegalArgumentException("temperature must be >= 0, got " + temperature);
        if (!(topP > 0 && topP <= 1)) throw new IllegalArgumentException("top-p must be in (0, 1], got " + topP);
        if (maxTokens <= 0) throw new IllegalArgumentException("max-tokens must be > 0, got " + maxTokens);
        stop = stop == null ? List.of() : List.copyOf(stop);
    }

    public static SamplingParams fromConfig(Config c) {
        return new SamplingParams(
                c.getDouble("temperature"),
                c.getDouble("top-p"),
                c.getInt("top-k"),
                c.getInt("max-tokens"),
                c.getStringList("stop"),
                c.hasPath("seed") ? c.getLong("seed") : null);
    }

    public SamplingParams withExtraStops(List<String> extra) {
        if (extra.isEmpty()) return this;
        List<String> all = new ArrayList<>(stop);
        for (String s : extra) if (!all.contains(s)) all.add(s);
        return new SamplingParams(temperature, topP, topK, maxTokens, all, seed);
    }

    public SamplingParams withSeed(Long newSeed) {
        return new SamplingParams(temperature, topP, topK, maxTokens, stop, newSeed);
    }

    public SamplingParams withMaxTokens(int n) {
        return new SamplingParams(temperature, topP, topK, n, stop, seed);
    }
}
