package dev.agentswarm.learner.rl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import org.junit.jupiter.api.Test;

class GrpoSettingsTest {

    private static GrpoSettings read(String hocon, int maxTokens) {
        return GrpoSettings.fromConfig(ConfigFactory.parseString(hocon).withFallback(ConfigFactory.load()), maxTokens);
    }

    @Test
    void theDefaultsAreTrlsAndDapos() {
        GrpoSettings s = read("", 512);
        assertEquals(8, s.numGenerations());
        assertEquals(PolicyLoss.Type.DAPO, s.loss().type());
        assertEquals(0.2, s.loss().epsilon());
        assertEquals(0.28, s.loss().epsilonHigh());
        assertEquals(0.0, s.loss().beta(), "KL removal");
        assertEquals(GroupAdvantages.Scale.GROUP, s.groups().scale());
        assertTrue(s.groups().dynamicSampling());
        assertFalse(s.groups().maskTruncated());
        assertEquals(512, s.groups().maxCompletionTokens());
        assertEquals(1, s.numIterations());
    }

    @Test
    void badValuesAreNamedByTheirKey() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> read("agentswarm.learner.grpo.loss-type = ppo", 512)).getMessage()
                .contains("agentswarm.learner.grpo: loss-type takes grpo, dapo, dr_grpo or bnpo"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> read("agentswarm.learner.grpo.overlong-buffer-len = 600", 512))
                .getMessage().contains("overlong-buffer-len must be in [0, max-tokens)"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> read("agentswarm.learner.grpo.num-generations = 1", 512))
                .getMessage().contains("agentswarm.learner.grpo.num-generations must be >= 2"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> read("agentswarm.learner.grpo.epsilon = lots", 512))
                .getMessage().contains("epsilon"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> read("agentswarm.learner.grpo.epsilon-high = 0.1", 512))
                .getMessage().contains("epsilon-high must be >= epsilon"));
    }
}
