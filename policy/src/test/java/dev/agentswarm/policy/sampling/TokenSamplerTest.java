package dev.agentswarm.policy.sampling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.protocol.SamplingParams;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class TokenSamplerTest {

    private static SamplingParams params(double t, int k, double p) {
        return new SamplingParams(t, p, k, 16, List.of(), 7L);
    }

    private static final float[] LOGITS = {2.0f, 1.0f, 0.5f, -1.0f, 0.0f};

    @Test
    void greedyIsTheArgmaxWithLogprobZero() {
        var c = new TokenSampler(params(0, 0, 1)).sample(LOGITS, new SplittableRandom(1));
        assertEquals(0, c.tokenId());
        assertEquals(0f, c.logprob());
    }

    @Test
    void logprobIsUnderTheTemperedDistribution() {
        // T = 2: p_i ∝ exp(l_i / 2); check the reported log-prob against a hand computation.
        double z = 0;
        for (float l : LOGITS) z += Math.exp(l / 2.0);
        TokenSampler s = new TokenSampler(params(2.0, 0, 1));
        SplittableRandom rng = new SplittableRandom(3);
        for (int i = 0; i < 200; i++) {
            var c = s.sample(LOGITS, rng);
            assertEquals(Math.log(Math.exp(LOGITS[c.tokenId()] / 2.0) / z), c.logprob(), 1e-6);
        }
    }

    @Test
    void theTopTokensAreTheMostLikelyOfTheDistributionSampledFrom() {
        float[] logits = {0.5f, 2.0f, -1.0f, 2.0f, 1.0f};
        TokenSampler s = new TokenSampler(params(1.0, 0, 1));
        TokenSampler.Choice c = s.sample(logits, new SplittableRandom(3));
        int[] ids = new int[3];
        float[] lps = new float[3];
        assertEquals(3, s.top(3, ids, lps));
        double z = 0;
        for (float l : logits) z += Math.exp(l);
        // Most likely first; the tie (ids 1 and 3) keeps the lower id first.
        assertEquals(List.of(1, 3, 4), List.of(ids[0], ids[1], ids[2]));
        for (int k = 0; k < 3; k++) assertEquals(logits[ids[k]] - Math.log(z), lps[k], 1e-5, "top " + k);
        // The sampled token's own log-prob is under the same distribution.
        assertEquals(logits[c.tokenId()] - Math.log(z), c.logprob(), 1e-5);

        // Top-k 2 cuts the rest: only two tokens are left, renormalised between them.
        TokenSampler cut = new TokenSampler(params(1.0, 2, 1));
        cut.sample(logits, new SplittableRandom(3));
        assertEquals(2, cut.top(3, ids, lps));
        assertEquals(Math.log(0.5), lps[0], 1e-5);
        assertEquals(Math.log(0.5), lps[1], 1e-5);

        // Greedy is a point mass: its token alone, at 0.
        TokenSampler greedy = new TokenSampler(params(0, 0, 1));
        greedy.sample(logits, new SplittableRandom(3));
        assertEquals(1, greedy.top(3, ids, lps));
        assertEquals(1, ids[0]);
        assertEquals(0f, lps[0]);
    }

    @Test
    void topKRenormalisesOverTheKBest() {
        TokenSampler s = new TokenSampler(params(1.0, 2, 1));
        double z = Math.exp(2.0) + Math.exp(1.0);
        SplittableRandom rng = new SplittableRandom(5);
        int[] seen = new int[LOGITS.length];
        for (int i = 0; i < 5000; i++) {
            var c = s.sample(LOGITS, rng);
            seen[c.tokenId()]++;
            assertEquals(Math.log(Math.exp(LOGITS[c.tokenId()]) / z), c.logprob(), 1e-6);
        }
        assertEquals(0, seen[2] + seen[3] + seen[4], "only the two best tokens are ever drawn");
        double share = seen[0] / 5000.0;
        assertEquals(Math.exp(2.0) / z, share, 0.03, "frequencies follow the renormalised probabilities");
    }

    @Test
    void topPKeepsTheSmallestNucleus() {
        // probabilities ≈ [0.56, 0.21, 0.13, 0.03, 0.08] (T = 1): top-p 0.6 keeps tokens 0 and 1.
        TokenSampler s = new TokenSampler(params(1.0, 0, 0.6));
        SplittableRandom rng = new SplittableRandom(9);
        for (int i = 0; i < 2000; i++) {
            int id = s.sample(LOGITS, rng).tokenId();
            assertTrue(id == 0 || id == 1, "drew " + id);
        }
        // A tiny top-p still keeps the single best token.
        assertEquals(0, new TokenSampler(params(1.0, 0, 0.01)).sample(LOGITS, rng).tokenId());
    }

    @Test
    void sameSeedSameTokensOtherSeedOtherTokens() {
        TokenSampler s = new TokenSampler(params(1.5, 0, 1));
        float[] flat = new float[64];
        int[] a = draw(s, flat, 42), b = draw(s, flat, 42), c = draw(s, flat, 43);
        assertEquals(java.util.Arrays.toString(a), java.util.Arrays.toString(b));
        assertNotEquals(java.util.Arrays.toString(a), java.util.Arrays.toString(c));
    }

    private static int[] draw(TokenSampler s, float[] logits, long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        int[] out = new int[50];
        for (int i = 0; i < out.length; i++) out[i] = s.sample(logits, rng).tokenId();
        return out;
    }

    @Test
    void emptyLogitsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new TokenSampler(params(1, 0, 1)).sample(new float[0], new SplittableRandom(1)));
    }

    @Test
    void stopSequencesFoundOnlyWhereNewTextCouldComplete() {
        StopSequences stops = new StopSequences(List.of("</tool_call>", "Observation:"));
        StringBuilder text = new StringBuilder("<tool_call>{\"name\": \"x\"}</tool_");
        assertEquals(-1, stops.find(text, 20));
        int before = text.length();
        text.append("call>");
        assertEquals(text.indexOf("</tool_call>"), stops.find(text, before));
        assertEquals(-1, new StopSequences(List.of()).find(text, 0));
        assertEquals(1, new StopSequences(List.of("cd", "bcd")).find("abcde", 3), "the earliest match wins");
    }
}
