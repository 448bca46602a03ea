package dev.agentswarm.policy.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import ai.djl.ndarray.BaseNDManager;
import ai.djl.training.ParameterStore;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CausalLmTest {

    private static final ModelConfig TINY = ModelConfig.preset("tiny");

    /** The shape under test; subclasses test the other attention layouts with every test here. */
    ModelConfig config() {
        return TINY;
    }

    CausalLm build(NDManager manager) {
        return CausalLm.create(config(), manager, 7);
    }

    private NDManager root;
    private CausalLm model;
    private ParameterStore ps;

    @BeforeAll
    void createModel() {
        InferenceThreads.noGradHere();
        root = NDManager.newBaseManager();
        model = build(root);
        ps = new ParameterStore(root, false);
    }

    @AfterAll
    void close() {
        root.close();
    }

    /**
     * One decode step through one of the paths, as row-major logits: {@code hybrid[0]} attends in
     * Java, {@code hybrid[1]} with engine ops.
     */
    private interface DecodePath {
        float[][] step(NDManager step, int[] tokens, int[] positions, KvCache cache, HybridDecoder[] hybrid);
    }

    private final DecodePath enginePath = (step, tokens, positions, cache, hybrid) ->
            rows(model.decode(ps, step, tokens, positions, cache));

    private final DecodePath hybridJavaAttention = (step, tokens, positions, cache, hybrid) ->
            split(hybrid[0].step(tokens, positions), tokens.length);

    private final DecodePath hybridEngineAttention = (step, tokens, positions, cache, hybrid) ->
            split(hybrid[1].step(tokens, positions), tokens.length);

    @Test
    void theEntropyIsThatOfEachPositionsNextTokenDistribution() {
        try (NDManager step = root.newSubManager()) {
            NDArray ids = ids(step, randomTokens(11, 12));
            NDArray[] both = model.tokenLogProbsAndEntropy(ps, ids, false);
            org.junit.jupiter.api.Assertions.assertArrayEquals(model.tokenLogProbs(ps, ids, false).toFloatArray(), both[0].toFloatArray(), 1e-6f);
            float[][] logits = rows(model.logits(ps, ids, false).reshape(12, config().vocab()));
            float[] entropy = both[1].toFloatArray();
            assertEquals(11, entropy.length);
            for (int t = 0; t < 11; t++) {
                double max = Double.NEGATIVE_INFINITY;
                for (float x : logits[t]) max = Math.max(max, x);
                double z = 0;
                for (float x : logits[t]) z += Math.exp(x - max);
                double h = 0;
                for (float x : logits[t]) {
                    double logp = x - max - Math.log(z);
                    h -= Math.exp(logp) * logp;
                }
                assertEquals(h, entropy[t], 1e-4, "position " + t);
                assertTrue(h > 0 && h <= Math.log(config().vocab()) + 1e-6);
            }
        }
    }

    @Test
    void kvCacheDecodingGivesTheLogitsOfAFullPass() {
        decodeAgainstFullPass(s -> enginePath);
    }

    @Test
    void hybridDecodingWithJavaAttentionGivesTheLogitsOfAFullPass() {
        decodeAgainstFullPass(s -> hybridJavaAttention);
    }

    @Test
    void hybridDecodingWithEngineAttentionGivesTheLogitsOfAFullPass() {
        decodeAgainstFullPass(s -> hybridEngineAttention);
    }

    @Test
    void theDecodePathsTakeTurnsOnOneCache() {
        DecodePath[] turns = {enginePath, hybridJavaAttention, hybridEngineAttention};
        decodeAgainstFullPass(s -> turns[s % 3]);
    }

    /**
     * Three prompts of different lengths prefilled together, 20 steps with each row at its own
     * position, then a row leaves and the last one moves into its slot, then two rows at the same
     * position (the unmasked case): every step's logits match the full causal pass.
     */
    private void decodeAgainstFullPass(java.util.function.IntFunction<DecodePath> pathAtStep) {
        int[][] seqs = {randomTokens(1, 40), randomTokens(2, 40), randomTokens(3, 40)};
        int[] prompt = {5, 12, 1};
        try (NDManager step = root.newSubManager(); KvCache cache = new KvCache(step, config(), 4, 64);
             HybridDecoder javaAttention = new HybridDecoder(model, cache, step, 4, 4);
             HybridDecoder engineAttention = new HybridDecoder(model, cache, step, 4, 0)) {
            HybridDecoder[] hybrid = {javaAttention, engineAttention};
            float[][][] full = new float[3][][];
            for (int r = 0; r < 3; r++) full[r] = fullLogits(step, seqs[r]);
            long[] padded = new long[3 * 12];
            for (int r = 0; r < 3; r++) for (int t = 0; t < prompt[r]; t++) padded[r * 12 + t] = seqs[r][t];
            float[][] first = rows(model.prefill(ps, step.create(padded, new Shape(3, 12)), prompt, cache, 0));
            for (int r = 0; r < 3; r++) assertClose(full[r][prompt[r] - 1], first[r], "prefill row " + r);
            int[] pos = prompt.clone();
            int s = 0;
            for (; s < 20; s++) {
                int[] tokens = new int[3];
                for (int r = 0; r < 3; r++) tokens[r] = seqs[r][pos[r]];
                float[][] logits = pathAtStep.apply(s).step(step, tokens, pos, cache, hybrid);
                for (int r = 0; r < 3; r++) assertClose(full[r][pos[r]], logits[r], "step " + s + " row " + r + " at " + pos[r]);
                for (int r = 0; r < 3; r++) pos[r]++;
            }
            // Row 1 finishes: row 2 moves into its slot and goes on from where it was.
            cache.moveSlot(2, 1);
            int[] at = {pos[0], pos[2]};
            float[][] logits = pathAtStep.apply(s++).step(step, new int[] {seqs[0][at[0]], seqs[2][at[1]]}, at, cache, hybrid);
            assertClose(full[0][at[0]], logits[0], "row 0 after the move");
            assertClose(full[2][at[1]], logits[1], "moved row");
            // Slot 1 takes a copy of row 0's history: two rows at one position, nothing masked.
            cache.moveSlot(0, 1);
            for (int t = 0; t < 8; t++) {
                int p = at[0] + 1 + t;
                float[][] both = pathAtStep.apply(s++).step(step, new int[] {seqs[0][p], seqs[0][p]}, new int[] {p, p}, cache, hybrid);
                assertClose(full[0][p], both[0], "aligned row 0 at " + p);
                assertClose(full[0][p], both[1], "aligned row 1 at " + p);
            }
        }
    }

    static float[][] split(float[] flat, int n) {
        int v = flat.length / n;
        float[][] out = new float[n][];
        for (int i = 0; i < n; i++) out[i] = java.util.Arrays.copyOfRange(flat, i * v, (i + 1) * v);
        return out;
    }

    @Test
    void laterTokensNeverChangeEarlierLogProbs() {
        int[] a = randomTokens(9, 30);
        int[] b = a.clone();
        b[29] = (b[29] + 1) % config().vocab();
        b[20] = (b[20] + 7) % config().vocab();
        try (NDManager step = root.newSubManager()) {
            float[] la = logProbs(step, a);
            float[] lb = logProbs(step, b);
            for (int t = 0; t < 19; t++) assertEquals(la[t], lb[t], 0f, "position " + t);
            assertTrue(Math.abs(la[19] - lb[19]) > 1e-6, "the changed token's own log-prob changes");
        }
    }

    @Test
    void rightPaddingDoesNotChangeARowsLogProbs() {
        int[] shortSeq = randomTokens(4, 10);
        int[] longSeq = randomTokens(5, 25);
        try (NDManager step = root.newSubManager()) {
            long[] batch = new long[2 * 25];
            for (int t = 0; t < 25; t++) batch[t] = longSeq[t];
            for (int t = 0; t < 10; t++) batch[25 + t] = shortSeq[t];
            for (int t = 10; t < 25; t++) batch[25 + t] = 3; // padding
            float[] padded = model.tokenLogProbs(ps, step.create(batch, new Shape(2, 25)), false)
                    .get(new NDIndex("1, :9")).toFloatArray();
            assertClose(logProbs(step, shortSeq), padded, "short row alone vs padded");
        }
    }

    @Test
    void sameSeedSameWeightsOtherSeedOtherWeights() {
        try (NDManager m = root.newSubManager()) {
            CausalLm again = build(m);
            CausalLm other = CausalLm.create(config(), m, 8);
            var mine = model.namedParameters().get("blocks.1.mlp.up.weight").getArray().toFloatArray();
            assertArrayEquals(mine, again.namedParameters().get("blocks.1.mlp.up.weight").getArray().toFloatArray());
            assertTrue(mine[0] != other.namedParameters().get("blocks.1.mlp.up.weight").getArray().toFloatArray()[0]);
            assertEquals(config().parameters(), again.namedParameters().values().stream()
                    .mapToLong(p -> p.getArray().getShape().size()).sum());
        }
    }

    @Test
    void decodingStepsLeaveNoArraysBehind() {
        try (NDManager step = root.newSubManager(); KvCache cache = new KvCache(step, config(), 2, 32);
             HybridDecoder javaAttention = new HybridDecoder(model, cache, step, 2, 2);
             HybridDecoder engineAttention = new HybridDecoder(model, cache, step, 2, 0)) {
            int before = ((BaseNDManager) root).getManagedArrays().size();
            int beforeHere = ((BaseNDManager) step).getManagedArrays().size();
            for (int s = 0; s < 10; s++) {
                try (NDManager one = step.newSubManager()) {
                    model.decode(ps, one, new int[] {1, 2}, new int[] {s, s}, cache);
                }
            }
            for (int s = 10; s < 20; s++) {
                // Products attach to their weight's manager first: the decoder must move them to its step.
                javaAttention.step(new int[] {1, 2}, new int[] {s, s});
                engineAttention.step(new int[] {1, 2}, new int[] {s, s - 1});
            }
            assertEquals(beforeHere, ((BaseNDManager) step).getManagedArrays().size(), "arrays attached to the caller's manager");
            cache.moveSlot(1, 0);
            assertEquals(before, ((BaseNDManager) root).getManagedArrays().size(), "arrays attached to the model's manager");
        }
    }

    @Test
    void theHybridDecoderRefusesBadStepsWithoutTouchingTheCache() {
        try (NDManager step = root.newSubManager(); KvCache cache = new KvCache(step, config(), 2, 8);
             HybridDecoder hybrid = new HybridDecoder(model, cache, step, 4, 1)) {
            assertEquals(2, hybrid.maxRows(), "never more rows than the cache has slots");
            hybrid.step(new int[] {4, 5}, new int[] {0, 0});
            float[] before = cacheContents(cache);
            var tooMany = assertThrows(IllegalArgumentException.class, () -> hybrid.step(new int[] {1, 2, 3}, new int[] {0, 0, 0}));
            assertTrue(tooMany.getMessage().contains("outside 1..2"), tooMany.getMessage());
            var past = assertThrows(IllegalArgumentException.class, () -> hybrid.step(new int[] {1}, new int[] {8}));
            assertTrue(past.getMessage().contains("cache length 8"), past.getMessage());
            var token = assertThrows(IllegalArgumentException.class, () -> hybrid.step(new int[] {config().vocab()}, new int[] {0}));
            assertTrue(token.getMessage().contains("outside the vocabulary"), token.getMessage());
            var late = assertThrows(IllegalArgumentException.class, () -> hybrid.step(new int[] {1, 2}, new int[] {1, 9}));
            assertTrue(late.getMessage().contains("position 9"), late.getMessage());
            assertArrayEquals(before, cacheContents(cache), "a refused step writes nothing");
        }
    }

    private static float[] cacheContents(KvCache cache) {
        java.nio.FloatBuffer view = cache.view(0);
        float[] out = new float[view.remaining()];
        view.get(out);
        return out;
    }

    @Test
    void decodePastTheCacheIsRefused() {
        try (NDManager step = root.newSubManager(); KvCache cache = new KvCache(step, config(), 1, 8)) {
            var e = assertThrows(IllegalArgumentException.class,
                    () -> model.decode(ps, step, new int[] {1}, new int[] {8}, cache));
            assertTrue(e.getMessage().contains("cache length 8"), e.getMessage());
        }
    }

    private float[][] fullLogits(NDManager step, int[] tokens) {
        NDArray logits = model.logits(ps, ids(step, tokens), false);
        return rows(logits.reshape(tokens.length, config().vocab()));
    }

    float[] logProbs(NDManager step, int[] tokens) {
        return model.tokenLogProbs(ps, ids(step, tokens), false).toFloatArray();
    }

    static NDArray ids(NDManager step, int[] tokens) {
        long[] ids = new long[tokens.length];
        for (int i = 0; i < ids.length; i++) ids[i] = tokens[i];
        return step.create(ids, new Shape(1, ids.length));
    }

    static float[][] rows(NDArray matrix) {
        int n = (int) matrix.getShape().get(0);
        int v = (int) matrix.getShape().get(1);
        float[] flat = matrix.toFloatArray();
        float[][] out = new float[n][v];
        for (int i = 0; i < n; i++) System.arraycopy(flat, i * v, out[i], 0, v);
        return out;
    }

    static int[] randomTokens(long seed, int n) {
        Random r = new Random(seed);
        int[] t = new int[n];
        for (int i = 0; i < n; i++) t[i] = r.nextInt(TINY.vocab()); // every shape under test has this vocabulary
        return t;
    }

    static void assertClose(float[] expected, float[] actual, String what) {
        assertEquals(expected.length, actual.length, what);
        float worst = 0;
        for (int i = 0; i < expected.length; i++) worst = Math.max(worst, Math.abs(expected[i] - actual[i]));
        assertTrue(worst <= 1e-4f, what + ": max |diff| " + worst);
    }
}
