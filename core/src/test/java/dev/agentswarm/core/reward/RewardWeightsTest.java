package dev.agentswarm.core.reward;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RewardWeightsTest {

    private static RewardWeights parse(String hocon) {
        return RewardWeights.fromConfig(ConfigFactory.parseString(hocon));
    }

    @Test
    void theTotalWeighsOnlyTheWeightedComponentsButKeepsThemAll() {
        RewardWeights w = parse("{ f1 = 1.0, efficiency = 0.1 }");
        Map<String, Double> components = new LinkedHashMap<>();
        components.put("f1", 0.5);
        components.put("efficiency", 0.8);
        components.put("format", 1.0);
        var b = w.combine(components);
        assertEquals(0.5 + 0.08, b.total(), 1e-12);
        assertEquals(List.of("f1", "efficiency", "format"), List.copyOf(b.components().keySet()), "unweighted 'format' stays");
        assertEquals(1.0, b.components().get("format"));
        assertEquals(0.0, w.combine(Map.of()).total());
        assertEquals(-0.5, parse("{ overlong = 1 }").combine(Map.of("overlong", -0.5)).total(), 1e-12, "integers and negatives");
    }

    @Test
    void badWeightsAreRefusedByName() {
        var text = assertThrows(IllegalArgumentException.class, () -> parse("{ f1 = high }"));
        assertTrue(text.getMessage().contains("'f1'") && text.getMessage().contains("high"), text.getMessage());
        var nan = assertThrows(IllegalArgumentException.class, () -> parse("{ f1 = NaN }"));
        assertTrue(nan.getMessage().contains("'f1'"), nan.getMessage());
        var huge = assertThrows(IllegalArgumentException.class, () -> parse("{ f1 = 1, efficiency = 1e999 }"));
        assertTrue(huge.getMessage().contains("'efficiency'"), huge.getMessage());
        var nested = assertThrows(IllegalArgumentException.class, () -> parse("{ a { b = 1 } }"));
        assertTrue(nested.getMessage().contains("'a'"), nested.getMessage());
        var direct = assertThrows(IllegalArgumentException.class, () -> new RewardWeights(Map.of("f1", Double.NaN)));
        assertEquals("reward weight 'f1' must be a finite number, got NaN", direct.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new RewardWeights(Map.of("f1", Double.NEGATIVE_INFINITY)));
    }

    @Test
    void badComponentValuesAreRefusedByName() {
        RewardWeights w = new RewardWeights(Map.of("f1", 1.0));
        var nan = assertThrows(IllegalArgumentException.class, () -> w.combine(Map.of("format", Double.NaN)));
        assertTrue(nan.getMessage().contains("'format'"), nan.getMessage());
        Map<String, Double> missing = new LinkedHashMap<>();
        missing.put("f1", null);
        assertThrows(IllegalArgumentException.class, () -> w.combine(missing));
    }

    @Test
    void weightsForComponentsTheSuiteNeverProducesAreReported() {
        RewardWeights w = parse("{ f1 = 1.0, effciency = 0.1 }");
        var e = assertThrows(IllegalArgumentException.class, () -> w.requireKnown("multihop", Set.of("f1", "efficiency", "format")));
        assertEquals("multihop.reward: reward weights for unknown component(s) [effciency]; this suite produces [efficiency, f1, format]",
                e.getMessage());
        parse("{ f1 = 1.0 }").requireKnown("multihop", Set.of("f1", "format"));
        new RewardWeights(Map.of()).requireKnown("multihop", Set.of());
    }
}
