package dev.agentswarm.core.protocol;

import dev.agentswarm.core.CborSerializable;
import java.util.LinkedHashMap;
import java.util.Map;

/** A reward as named components (outcome, format, efficiency, …) and their weighted total. */
public record RewardBreakdown(Map<String, Double> components, double total) implements CborSerializable {

    public static final RewardBreakdown NONE = new RewardBreakdown(Map.of(), 0.0);

    public RewardBreakdown {
        components = components == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(components));
    }
}
