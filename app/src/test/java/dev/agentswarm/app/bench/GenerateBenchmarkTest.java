package dev.agentswarm.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.policy.embedded.GeneratorSettings;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GenerateBenchmarkTest {

    @Test
    @SuppressWarnings("unchecked")
    void reportsThroughputByConcurrencyAndThePairedCacheRatio() throws Exception {
        var settings = new GenerateBenchmark.Settings("tiny", 4, 8, new int[] {1, 2}, 2, true,
                GeneratorSettings.Decoder.HYBRID, 1);
        Map<String, Object> f = GenerateBenchmark.run(settings, line -> {});
        Map<String, Double> tps = (Map<String, Double>) f.get("tokens_per_s");
        assertEquals(2, tps.size());
        assertTrue(tps.get("1") > 0 && tps.get("2") > 0, tps.toString());
        double cached = (Double) f.get("cached_tokens_per_s_paired");
        double recomputed = (Double) f.get("recompute_tokens_per_s");
        double ratio = (Double) f.get("kv_cache_speedup_8");
        assertTrue(cached > 0 && recomputed > 0, f.toString());
        // The median ratio is one pair's ratio, not a ratio of medians.
        assertTrue(ratio > 0 && Double.isFinite(ratio), f.toString());
        assertEquals("hybrid", f.get("decoder"));
        assertEquals(1, f.get("java_attention_rows"));
    }
}
