package dev.agentswarm.core.reward;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import dev.agentswarm.core.protocol.RewardBreakdown;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Named weights of reward components, read from a HOCON block ({@code { f1 = 1.0, efficiency = 0.1 }}).
 * A suite measures its components; the weights make the total. Every component stays in the
 * breakdown, weighted or not, so evaluations and ablations can read them.
 */
public final class RewardWeights {

    private final Map<String, Double> weights;

    public RewardWeights(Map<String, Double> weights) {
        Map<String, Double> copy = new LinkedHashMap<>();
        weights.forEach((name, w) -> {
            if (w == null || !Double.isFinite(w)) {
                throw new IllegalArgumentException("reward weight '" + name + "' must be a finite number, got " + w);
            }
            copy.put(name, w);
        });
        this.weights = Collections.unmodifiableMap(copy);
    }

    /** From a block of {@code name = number} entries; a non-numeric value is refused by name. */
    public static RewardWeights fromConfig(Config block) {
        Map<String, Double> m = new LinkedHashMap<>();
        for (Map.Entry<String, ConfigValue> e : new java.util.TreeMap<>(block.root()).entrySet()) {
            ConfigValue v = e.getValue();
            if (v.valueType() != ConfigValueType.NUMBER) {
                throw new IllegalArgumentException("reward weight '" + e.getKey() + "' must be a number, got " + v.render());
            }
            m.put(e.getKey(), ((Number) v.unwrapped()).doubleValue());
        }
        return new RewardWeights(m);
    }

    public Map<String, Double> weights() {
        return weights;
    }

    /**
     * Refuses weights for components the suite never produces (a typo would silently weigh nothing),
     * naming the suite's block: {@code "sql.reward: reward weights for unknown component(s) [x]; …"}.
     */
    public void requireKnown(String suite, Set<String> produced) {
        Set<String> unknown = new TreeSet<>(weights.keySet());
        unknown.removeAll(produced);
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException(suite + ".reward: reward weights for unknown component(s) " + unknown
                    + "; this suite produces " + new TreeSet<>(produced));
        }
    }

    /**
     * The breakdown of these components: total = Σ weight × value over the weighted ones; all are kept,
     * the unweighted ones counting 0. A missing or non-finite value is refused by name: it would make
     * the total meaningless.
     */
    public RewardBreakdown combine(Map<String, Double> components) {
        double total = 0;
        for (Map.Entry<String, Double> e : components.entrySet()) {
            Double v = e.getValue();
            if (v == null || !Double.isFinite(v)) {
                throw new IllegalArgumentException("reward component '" + e.getKey() + "' must be a finite number, got " + v);
            }
            Double w = weights.get(e.getKey());
            if (w != null) total += w * v;
        }
        return new RewardBreakdown(components, total);
    }
}
