package dev.agentswarm.policy.embedded;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.ParameterStore;
import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.core.protocol.SamplingParams;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.InferenceThreads;
import dev.agentswarm.policy.model.ModelConfig;
import dev.agentswarm.policy.model.ModelWeights;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class BatchGeneratorTest {

    private static final ModelConfig TINY = ModelConfig.preset("tiny").withContext(96);
    private static final SamplingParams GREEDY = new SamplingParams(0, 1, 0, 12, List.of(), null);

    private NDManager root;
    private CausalLm model;

    @BeforeEach
    void setUp() {
        InferenceThreads.noGradHere();
        root = NDManager.newBaseManager();
        model = CausalLm.create(TINY, root, 11);
    }

    @AfterEach
    void tearDown() {
        root.close();
    }

    private BatchGenerator generator(int slots, int maxQueued) {
        return new BatchGenerator(model, root, new GeneratorSettings(slots, maxQueued, 4096, 5),
                id -> new byte[] {(byte) ('a' + id % 26)}, TINY.vocab(), 1);
    }

    /** -1: the engine decoder; otherwise the hybrid one with this many Java-attention rows. */
    private BatchGenerator generatorWithDecoder(int slots, int maxQueued, int javaAttentionRows) {
        return generatorWithDecoder(model, root, slots, maxQueued, javaAttentionRows);
    }

    private BatchGenerator generatorWithDecoder(CausalLm lm, NDManager manager, int javaAttentionRows) {
        return generatorWithDecoder(lm, manager, 2, 4, javaAttentionRows);
    }

    private static BatchGenerator generatorWithDecoder(CausalLm lm, NDManager manager, int slots, int maxQueued,
                                                       int javaAttentionRows) {
        GeneratorSettings.Decoder decoder = javaAttentionRows < 0 ? GeneratorSettings.Decoder.ENGINE : GeneratorSettings.Decoder.HYBRID;
        return new BatchGenerator(lm, manager, new GeneratorSettings(slots, maxQueued, 4096, 5, decoder, Math.max(0, javaAttentionRows)),
                id -> new byte[] {(byte) ('a' + id % 26)}, TINY.vocab(), 1);
    }

    @Test
    void theHybridAndEngineDecodersSampleTheSameTokens() {
        // Six seeded, sampled (not greedy) requests through 6 slots: the batch shrinks from 6 rows,
        // so with 3 Java-attention rows the hybrid steps cross from engine attention to Java attention.
        SamplingParams sampled = new SamplingParams(0.9, 0.95, 40, 1, List.of(), null);
        Map<Integer, Map<Long, Generation>> bySetting = new HashMap<>();
        for (int javaAttentionRows : new int[] {-1, 3, 6}) {
            Map<Long, Generation> results = new HashMap<>();
            try (BatchGenerator g = generatorWithDecoder(6, 16, javaAttentionRows)) {
                for (long id = 0; id < 6; id++) {
                    int[] prompt = {1 + (int) id, 7, 3, 9};
                    g.submit(new GenerationRequest(id, prompt, sampled.withMaxTokens(10 + 6 * (int) id).withSeed(100 + id), null));
                }
                while (g.hasWork()) for (Generation done : g.step()) results.put(done.id(), done);
            }
            bySetting.put(javaAttentionRows, results);
        }
        for (long id = 0; id < 6; id++) {
            int[] engine = bySetting.get(-1).get(id).tokens();
            assertEquals(10 + 6 * (int) id, engine.length, "request " + id);
            assertArrayEquals(engine, bySetting.get(3).get(id).tokens(), "hybrid, 3 Java-attention rows, request " + id);
            assertArrayEquals(engine, bySetting.get(6).get(id).tokens(), "hybrid, 6 Java-attention rows, request " + id);
            float[] a = bySetting.get(-1).get(id).logprobs();
            float[] b = bySetting.get(6).get(id).logprobs();
            for (int t = 0; t < a.length; t++) assertEquals(a[t], b[t], 1e-4f, "log-prob " + t + " of request " + id);
        }
    }

    @Test
    void continuousBatchingGivesWhatOneSequenceAtATimeGives() {
        try (BatchGenerator g = generator(3, 16)) {
            Map<Long, int[]> prompts = new HashMap<>();
            Map<Long, Generation> results = new HashMap<>();
            Random r = new Random(1);
            // Seven requests of different lengths arriving over the first steps, through 3 slots.
            for (long id = 0; id < 7; id++) {
                int[] p = new int[3 + r.nextInt(20)];
                for (int i = 0; i < p.length; i++) p[i] = r.nextInt(TINY.vocab());
                prompts.put(id, p);
            }
            long next = 0;
            while (next < 7 || g.hasWork()) {
                if (next < 7) g.submit(new GenerationRequest(next, prompts.get(next++), GREEDY.withMaxTokens(5 + (int) next), null));
                for (Generation done : g.step()) results.put(done.id(), done);
            }
            assertEquals(7, results.size());
            for (long id = 0; id < 7; id++) {
                int[] expected = greedyByFullRecompute(prompts.get(id), 5 + (int) id + 1);
                assertArrayEquals(expected, results.get(id).tokens(), "request " + id);
                assertEquals(FinishReason.LENGTH, results.get(id).finishReason());
            }
        }
    }

    @Test
    void sampledLogProbsAreThoseOfTheFullModelAndSeedsRepeat() {
        SamplingParams t1 = new SamplingParams(1.0, 1.0, 0, 10, List.of(), 1234L);
        int[] prompt = {5, 9, 200, 31};
        Generation alone;
        Generation crowded;
        try (BatchGenerator g = generator(4, 8)) {
            g.submit(new GenerationRequest(1, prompt, t1, null));
            alone = runAll(g).get(0);
        }
        try (BatchGenerator g = generator(4, 8)) {
            g.submit(new GenerationRequest(2, new int[] {1, 2, 3, 4, 5, 6, 7}, t1.withSeed(9L), null));
            g.submit(new GenerationRequest(1, prompt, t1, null));
            crowded = runAll(g).stream().filter(x -> x.id() == 1).findFirst().orElseThrow();
        }
        assertArrayEquals(alone.tokens(), crowded.tokens(), "same seed, same tokens, whoever shares the batch");
        int[] all = new int[prompt.length + alone.tokens().length];
        System.arraycopy(prompt, 0, all, 0, prompt.length);
        System.arraycopy(alone.tokens(), 0, all, prompt.length, alone.tokens().length);
        try (NDManager m = root.newSubManager()) {
            float[] full = model.tokenLogProbs(new ParameterStore(m, false), ids(m, all), false)
                    .get(new NDIndex("0, {}:", prompt.length - 1)).toFloatArray();
            for (int i = 0; i < full.length; i++) assertEquals(full[i], alone.logprobs()[i], 1e-4, "token " + i);
        }
    }

    @Test
    void stopTokensStopStringsAndTheContextEndEachFinishASequence() {
        try (BatchGenerator g = generator(4, 8)) {
            int[] prompt = {3, 4, 5};
            int[] free = greedyByFullRecompute(prompt, 6);
            // The last greedy token is declared a stop token: it ends the sequence at its first
            // occurrence and is kept in the ids.
            int stopId = free[5];
            int firstStop = 0;
            while (free[firstStop] != stopId) firstStop++;
            g.submit(new GenerationRequest(1, prompt, GREEDY, new int[] {stopId}));
            // The text of token i is one letter: stop on the letter of the 3rd token.
            String stop = String.valueOf((char) ('a' + free[2] % 26));
            g.submit(new GenerationRequest(2, prompt, GREEDY.withExtraStops(List.of(stop)), null));
            int[] nearlyFull = new int[TINY.context() - 2];
            g.submit(new GenerationRequest(3, nearlyFull, GREEDY.withMaxTokens(50), null));
            Map<Long, Generation> out = new HashMap<>();
            for (Generation x : runAll(g)) out.put(x.id(), x);

            assertEquals(FinishReason.STOP, out.get(1L).finishReason());
            assertEquals(firstStop + 1, out.get(1L).tokens().length);
            assertEquals(stopId, out.get(1L).tokens()[firstStop]);
            assertEquals(FinishReason.STOP, out.get(2L).finishReason());
            assertFalse(out.get(2L).text().contains(stop), "the stop string is cut from the text");
            assertEquals(FinishReason.LENGTH, out.get(3L).finishReason());
            assertEquals(2, out.get(3L).tokens().length, "generation ends where the context ends");
        }
    }

    @Test
    void aFullQueueAndAnOversizedPromptAreRefusedWithReasons() {
        try (BatchGenerator g = generator(1, 1)) {
            g.submit(new GenerationRequest(1, new int[] {1}, GREEDY, null));
            g.submit(new GenerationRequest(2, new int[] {1}, GREEDY, null));
            var full = assertThrows(BatchGenerator.QueueFullException.class,
                    () -> g.submit(new GenerationRequest(3, new int[] {1}, GREEDY, null)));
            assertTrue(full.getMessage().contains("max-queued = 1"), full.getMessage());
            var tooLong = assertThrows(IllegalArgumentException.class,
                    () -> g.submit(new GenerationRequest(4, new int[TINY.context()], GREEDY, null)));
            assertTrue(tooLong.getMessage().contains("context of 96 tokens"), tooLong.getMessage());
            var badId = assertThrows(IllegalArgumentException.class,
                    () -> g.submit(new GenerationRequest(5, new int[] {TINY.vocab()}, GREEDY, null)));
            assertTrue(badId.getMessage().contains("outside the vocabulary"), badId.getMessage());
            assertTrue(g.cancel(2));
            assertEquals(1, runAll(g).size());
        }
    }

    @Test
    void weightsSwappedMidSequenceAreReportedAsAVersionRange() {
        try (BatchGenerator g = generator(2, 4); NDManager other = root.newSubManager()) {
            g.submit(new GenerationRequest(1, new int[] {1, 2, 3}, GREEDY.withMaxTokens(6), null));
            g.step();
            g.step();
            long v = g.loadWeights(ModelWeights.export(CausalLm.create(TINY, other, 99), 7));
            assertEquals(7, v);
            g.submit(new GenerationRequest(2, new int[] {1, 2, 3}, GREEDY.withMaxTokens(3), null));
            Map<Long, Generation> out = new HashMap<>();
            for (Generation x : runAll(g)) out.put(x.id(), x);
            assertEquals(1, out.get(1L).firstVersion());
            assertEquals(7, out.get(1L).lastVersion());
            assertEquals(7, out.get(2L).firstVersion());
            assertEquals(6, out.get(1L).tokens().length, "greedy with no stop runs to max-tokens across the swap");
        }
    }

    @Test
    void afterASwapEveryDecoderServesTheNewWeights() {
        // A generator that has decoded with the old weights (the hybrid one keeps views of them) and
        // then loads others must sample exactly what a fresh generator on those weights samples.
        SamplingParams sampled = new SamplingParams(1.0, 1.0, 0, 16, List.of(), 5L);
        int[] prompt = {4, 9, 2, 7};
        for (int javaAttentionRows : new int[] {-1, 0, 2}) {
            try (NDManager other = root.newSubManager()) {
                CausalLm next = CausalLm.create(TINY, other, 1000);
                Generation fresh;
                try (BatchGenerator g = generatorWithDecoder(next, other, javaAttentionRows)) {
                    g.submit(new GenerationRequest(1, prompt, sampled, null));
                    fresh = runAll(g).get(0);
                }
                try (BatchGenerator g = generatorWithDecoder(model, root, javaAttentionRows)) {
                    g.submit(new GenerationRequest(1, prompt, sampled, null));
                    Generation old = runAll(g).get(0);
                    assertFalse(java.util.Arrays.equals(fresh.logprobs(), old.logprobs()), "the two models must differ");
                    g.loadWeights(ModelWeights.export(next, 3));
                    g.submit(new GenerationRequest(2, prompt, sampled, null));
                    Generation swapped = runAll(g).get(0);
                    String what = javaAttentionRows < 0 ? "engine decoder" : "hybrid decoder, java attention " + javaAttentionRows;
                    assertArrayEquals(fresh.tokens(), swapped.tokens(), what);
                    assertArrayEquals(fresh.logprobs(), swapped.logprobs(), 1e-4f, what);
                }
            }
            ModelWeights.copy(CausalLm.create(TINY, root, 11), model); // the next decoder starts from the old weights again
        }
    }

    private static List<Generation> runAll(BatchGenerator g) {
        List<Generation> out = new ArrayList<>();
        int guard = 0;
        while (g.hasWork() && guard++ < 10_000) out.addAll(g.step());
        return out;
    }

    private int[] greedyByFullRecompute(int[] prompt, int n) {
        List<Integer> seq = new ArrayList<>();
        for (int p : prompt) seq.add(p);
        int[] out = new int[n];
        try (NDManager m = root.newSubManager()) {
            ParameterStore ps = new ParameterStore(m, false);
            for (int k = 0; k < n; k++) {
                int[] all = seq.stream().mapToInt(Integer::intValue).toArray();
                NDArray logits = model.logits(ps, ids(m, all), false).get(new NDIndex("0, -1, :"));
                out[k] = (int) logits.argMax().getLong();
                seq.add(out[k]);
            }
        }
        return out;
    }

    private static NDArray ids(NDManager m, int[] tokens) {
        long[] ids = new long[tokens.length];
        for (int i = 0; i < ids.length; i++) ids[i] = tokens[i];
        return m.create(ids, new Shape(1, ids.length));
    }
}
