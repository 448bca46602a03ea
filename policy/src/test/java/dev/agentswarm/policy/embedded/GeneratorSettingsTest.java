package dev.agentswarm.policy.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import org.junit.jupiter.api.Test;

class GeneratorSettingsTest {

    @Test
    void theShippedConfigAndTheCodeDefaultAgree() {
        GeneratorSettings fromConfig = GeneratorSettings.fromConfig(ConfigFactory.load());
        assertEquals(GeneratorSettings.DEFAULT_SMALL_BATCH, fromConfig.smallBatch());
        assertEquals(new GeneratorSettings(fromConfig.slots(), fromConfig.maxQueued(), fromConfig.maxPrefillTokens(),
                fromConfig.seed()), fromConfig);
    }

    @Test
    void aNegativeSmallBatchIsRefusedByName() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> GeneratorSettings.fromConfig(ConfigFactory.parseString(
                        GeneratorSettings.CONFIG_PATH + ".small-batch = -1").withFallback(ConfigFactory.load())));
        assertTrue(e.getMessage().contains("small-batch"), e.getMessage());
    }
}
