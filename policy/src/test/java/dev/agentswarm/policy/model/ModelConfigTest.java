package dev.agentswarm.policy.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import org.junit.jupiter.api.Test;

class ModelConfigTest {

    @Test
    void smallHasTheReferenceShapeAndParameterCount() {
        ModelConfig small = ModelConfig.preset("small");
        // The PyTorch reference's count for this shape: 131,072 in the embedding, 3,295,488 in all ("3.3 M").
        assertEquals(131_072, small.embeddingParameters());
        assertEquals(3_295_488, small.parameters());
    }

    @Test
    void presetWithOverridesFromHocon() {
        var c = ModelConfig.fromConfig(ConfigFactory.parseString(
                "agentswarm.policy.embedded.model { preset = small, context = 1024 }"));
        assertEquals(256, c.dModel());
        assertEquals(1024, c.context());
        assertEquals("small", c.name());
        var custom = ModelConfig.fromConfig(ConfigFactory.parseString(
                "agentswarm.policy.embedded.model { preset = tiny, layers = 3 }"));
        assertEquals(3, custom.layers());
        assertEquals("tiny-custom", custom.name());
    }

    @Test
    void badShapesAreExplained() {
        var e = assertThrows(IllegalArgumentException.class, () -> ModelConfig.preset("huge"));
        assertTrue(e.getMessage().contains("known: base, small, tiny"), e.getMessage());
        var heads = assertThrows(IllegalArgumentException.class, () -> ModelConfig.fromConfig(ConfigFactory.parseString(
                "agentswarm.policy.embedded.model { preset = tiny, heads = 5 }")));
        assertTrue(heads.getMessage().contains("divisible by heads (5)"), heads.getMessage());
    }
}
