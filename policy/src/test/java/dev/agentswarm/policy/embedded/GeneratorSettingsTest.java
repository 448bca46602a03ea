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
        assertEquals(GeneratorSettings.Decoder.HYBRID, fromConfig.decoder());
        assertEquals(GeneratorSettings.DEFAULT_JAVA_ATTENTION_ROWS, fromConfig.javaAttentionRows());
        assertEquals(new GeneratorSettings(fromConfig.slots(), fromConfig.maxQueued(), fromConfig.maxPrefillTokens(),
                fromConfig.seed()), fromConfig);
    }

    @Test
    void aNegativeJavaAttentionRowsIsRefusedByName() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> GeneratorSettings.fromConfig(ConfigFactory.parseString(
                        GeneratorSettings.CONFIG_PATH + ".java-attention-rows = -1").withFallback(ConfigFactory.load())));
        assertTrue(e.getMessage().contains("java-attention-rows"), e.getMessage());
    }

    @Test
    void anUnknownDecoderIsRefusedWithTheChoices() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> GeneratorSettings.fromConfig(ConfigFactory.parseString(
                        GeneratorSettings.CONFIG_PATH + ".decoder = fast").withFallback(ConfigFactory.load())));
        assertTrue(e.getMessage().contains("hybrid or engine") && e.getMessage().contains("fast"), e.getMessage());
    }
}
