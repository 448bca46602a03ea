package dev.agentswarm.core.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import org.junit.jupiter.api.Test;

/** The weights settings, and the check that a chunk fits in one frame of the large-message lane. */
class WeightsSettingsTest {

    private static Config node(String provider, String frame, String chunk) {
        return ConfigFactory.parseString("pekko.actor.provider = " + provider + "\n" + WeightsSettings.FRAME_KEY + " = " + frame + "\n"
                + "agentswarm.weights.chunk-size = " + chunk).withFallback(ConfigFactory.load());
    }

    @Test
    void theDefaultsFitTheNodeFrame() {
        WeightsSettings s = WeightsSettings.fromConfig(node("cluster", "8 MiB", "4 MiB"));
        assertEquals(4 << 20, s.chunkSize());
        assertEquals(4, s.window());
    }

    @Test
    void aChunkThatCannotFitInTheLargeFrameIsRefusedNamingBothKeys() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> WeightsSettings.fromConfig(node("cluster", "4 MiB", "4 MiB")));
        assertTrue(e.getMessage().contains("agentswarm.weights.chunk-size") && e.getMessage().contains(WeightsSettings.FRAME_KEY),
                e.getMessage());
        assertEquals(512 * 1024, WeightsSettings.fromConfig(node("cluster", "1 MiB", "512 KiB")).chunkSize());
    }

    @Test
    void aNodeWithoutRemotingHasNoFrameToFit() {
        assertEquals(Long.MAX_VALUE, WeightsSettings.maxChunkBytes(node("local", "1 MiB", "4 MiB")));
        assertEquals(4 << 20, WeightsSettings.fromConfig(node("local", "1 MiB", "4 MiB")).chunkSize());
    }
}
