package dev.agentswarm.policy.hf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.ParameterStore;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.HfReference;
import dev.agentswarm.policy.model.HfReference.Spec;
import dev.agentswarm.policy.model.HybridDecoder;
import dev.agentswarm.policy.model.InferenceThreads;
import dev.agentswarm.policy.model.KvCache;
import dev.agentswarm.policy.model.SafetensorsFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Checkpoints in Hugging Face's exact layout, written by an independent float64 reference built from
 * transformers' modeling code (src/test/python/hf_checkpoint.py), loaded by the engine and compared:
 * per-token log-probs within 1e-4, and greedy tokens identical with and without the KV cache, batched
 * and alone.
 */
class HfCheckpointTest {

    private static final int CONTEXT = 64;

    @BeforeAll
    static void engine() {
        InferenceThreads.noGradHere();
    }

    static Stream<Arguments> shapes() {
        return Stream.of(
                Arguments.of("qwen3, GQA 4/2, head_dim 24 ≠ 64/4, untied, bf16 in 3 shards",
                        Spec.qwen3().withShards(3).withSeed(1)),
                Arguments.of("qwen3, tied, fp32 in one file", Spec.qwen3().withTie(true).withDtype("fp32").withSeed(2)),
                Arguments.of("qwen2 (q/k/v biases), GQA 4/1, tied, fp16 in 2 shards",
                        Spec.qwen2().withHeads(4, 1).withTie(true).withDtype("fp16").withShards(2).withSeed(3)),
                Arguments.of("llama-3.1 rope scaling, GQA 8/2, head_dim 16, untied, bf16",
                        Spec.llama().withHeads(8, 2).withHeadDim(16).withRopeScaling("llama3").withSeed(4)),
                Arguments.of("llama, plain multi-head attention (heads = kv heads), transformers 5 config",
                        Spec.llama().withHeads(4, 4).withHeadDim(16).withConfigStyle("v5").withSeed(5)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void logProbsAndGreedyTokensMatchTheReference(String what, Spec spec, @TempDir Path dir) throws Exception {
        HfReference.make(dir, spec);
        List<int[]> sequences = new ArrayList<>();
        Random r = new Random(spec.seed());
        for (int len : new int[] {CONTEXT, 23, 7}) {
            int[] ids = new int[len];
            for (int i = 0; i < len; i++) ids[i] = r.nextInt(spec.vocab());
            sequences.add(ids);
        }
        List<double[]> expected = HfReference.logprobs(dir, sequences);
        int[] prompt = {3, 141, 59, 26, 5};
        int newTokens = 12;
        HfReference.Generated greedy = HfReference.generate(dir, prompt, newTokens);
        try (NDManager manager = NDManager.newBaseManager()) {
            CausalLm model = HfCheckpoint.load(dir, manager, CONTEXT).model();
            ParameterStore ps = new ParameterStore(manager, false);
            // All three sequences in one right-padded batch: padding never changes a row's log-probs.
            long[] batch = new long[3 * CONTEXT];
            for (int s = 0; s < 3; s++) for (int t = 0; t < sequences.get(s).length; t++) batch[s * CONTEXT + t] = sequences.get(s)[t];
            float[] got = model.tokenLogProbs(ps, manager.create(batch, new Shape(3, CONTEXT)), false).toFloatArray();
            double worst = 0;
            for (int s = 0; s < 3; s++) {
                double[] want = expected.get(s);
                for (int t = 1; t < want.length; t++) worst = Math.max(worst, Math.abs(want[t] - got[s * (CONTEXT - 1) + t - 1]));
            }
            assertTrue(worst < 1e-4, what + ": max |log-prob difference| " + worst);

            assertArrayEquals(greedy.ids(), greedyWithoutCache(model, ps, manager, prompt, newTokens), what + ": without a cache");
            // With the cache: the prompt alone, and beside two other prompts of other lengths.
            assertArrayEquals(greedy.ids(), greedyWithCache(model, ps, manager, new int[][] {prompt}, newTokens)[0], what + ": cached, alone");
            int[][] batchOfThree = {sequences.get(2), prompt, sequences.get(1)};
            assertArrayEquals(greedy.ids(), greedyWithCache(model, ps, manager, batchOfThree, newTokens)[1], what + ": cached, batched");
        }
    }

    private static int[] greedyWithoutCache(CausalLm model, ParameterStore ps, NDManager manager, int[] prompt, int n) {
        List<Integer> ids = new ArrayList<>();
        for (int id : prompt) ids.add(id);
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            try (NDManager step = manager.newSubManager()) {
                long[] row = ids.stream().mapToLong(Integer::longValue).toArray();
                out[i] = (int) model.lastLogits(ps, step.create(row, new Shape(1, row.length))).argMax(1).getLong(0);
                ids.add(out[i]);
            }
        }
        return out;
    }

    /** Prefill the prompts together, then decode through the hybrid decoder, every row at its own position. */
    private static int[][] greedyWithCache(CausalLm model, ParameterStore ps, NDManager manager, int[][] prompts, int n) {
        int rows = prompts.length;
        int longest = 0;
        for (int[] p : prompts) longest = Math.max(longest, p.length);
        int[][] out = new int[rows][n];
        try (NDManager step = manager.newSubManager(); KvCache cache = new KvCache(step, model.config(), rows, longest + n);
             HybridDecoder decoder = new HybridDecoder(model, cache, step, rows, rows)) {
            long[] padded = new long[rows * longest];
            int[] lengths = new int[rows];
            for (int r = 0; r < rows; r++) {
                lengths[r] = prompts[r].length;
                for (int t = 0; t < prompts[r].length; t++) padded[r * longest + t] = prompts[r][t];
            }
            NDArray first = model.prefill(ps, step.create(padded, new Shape(rows, longest)), lengths, cache, 0);
            long[] next = first.argMax(1).toLongArray();
            int[] positions = lengths.clone();
            for (int i = 0; i < n; i++) {
                int[] tokens = new int[rows];
                for (int r = 0; r < rows; r++) tokens[r] = out[r][i] = (int) next[r];
                if (i == n - 1) break;
                float[] logits = decoder.step(tokens, positions);
                int vocab = model.config().vocab();
                for (int r = 0; r < rows; r++) {
                    int best = 0;
                    for (int v = 1; v < vocab; v++) if (logits[r * vocab + v] > logits[r * vocab + best]) best = v;
                    next[r] = best;
                    positions[r]++;
                }
            }
        }
        return out;
    }

    @Test
    void savingInHuggingFaceLayoutGivesBackTheSameTensorsBitForBit(@TempDir Path dir) throws Exception {
        Path source = HfReference.make(dir.resolve("source"), Spec.qwen3().withShards(3).withGenerationConfig(true).withSeed(8));
        Path saved = dir.resolve("saved");
        try (NDManager manager = NDManager.newBaseManager()) {
            HfCheckpoint.Loaded loaded = HfCheckpoint.load(source, manager, CONTEXT);
            // A shard limit of 40 kB splits this 0.2 MB model into several files with an index.
            HfSaver.save(loaded.model(), loaded.config(), source, saved, "bfloat16", 40_000);
        }
        Map<String, HfCheckpoint.Stored> before = HfCheckpoint.tensors(source);
        Map<String, HfCheckpoint.Stored> after = HfCheckpoint.tensors(saved);
        assertEquals(before.keySet(), after.keySet());
        assertTrue(after.values().stream().map(HfCheckpoint.Stored::file).distinct().count() > 3, "several shards");
        for (String name : before.keySet()) {
            assertArrayEquals(bytes(before.get(name)), bytes(after.get(name)), name);
        }
        assertTrue(Files.isRegularFile(saved.resolve("generation_config.json")), "companion files are copied");
        assertEquals(Json.MAPPER.readTree(Files.readString(source.resolve("config.json"))),
                Json.MAPPER.readTree(Files.readString(saved.resolve("config.json"))));
        // The reference reads what we wrote as it reads what it wrote.
        int[] ids = {5, 77, 200, 13, 9, 1, 250};
        assertArrayEquals(HfReference.logprobs(source, List.of(ids)).get(0), HfReference.logprobs(saved, List.of(ids)).get(0), 0.0);
    }

    private static byte[] bytes(HfCheckpoint.Stored s) throws Exception {
        try (var ch = java.nio.channels.FileChannel.open(s.file())) {
            var buffer = java.nio.ByteBuffer.allocate(Math.toIntExact(s.end() - s.begin()));
            while (buffer.hasRemaining()) ch.read(buffer, s.begin() + buffer.position());
            return buffer.array();
        }
    }

    @Test
    void narrowingToHalfAndBfloat16RoundsToNearestEven() {
        for (int h = 0; h < 0x10000; h++) {
            float wide = SafetensorsFile.halfToFloat((short) h);
            if (Float.isNaN(wide)) continue;
            assertEquals((short) h, HfSaver.toHalf(wide), "half " + Integer.toHexString(h));
            float bf = Float.intBitsToFloat(h << 16);
            if (!Float.isNaN(bf)) assertEquals((short) h, HfSaver.toBf16(bf), "bfloat16 " + Integer.toHexString(h));
        }
        // Exactly between two bfloat16 values: to the even one.
        assertEquals((short) 0x3f80, HfSaver.toBf16(Float.intBitsToFloat(0x3f808000)));
        assertEquals((short) 0x3f82, HfSaver.toBf16(Float.intBitsToFloat(0x3f818000)));
        assertEquals((short) 0x3c00, HfSaver.toHalf(1f + 0x1p-11f)); // halfway between 1 and 1 + 2^-10: even is 1
        assertEquals((short) 0x7c00, HfSaver.toHalf(70000f)); // past the largest half: infinity
    }

    @Test
    void aCheckpointThatDoesNotMatchItsConfigIsRefusedNamingTheTensor(@TempDir Path dir) throws Exception {
        HfReference.make(dir, Spec.qwen3().withDtype("fp32"));
        Path file = dir.resolve("model.safetensors");
        Map<String, SafetensorsFile.Tensor> tensors = new LinkedHashMap<>(SafetensorsFile.read(file).tensors());
        SafetensorsFile.Tensor norm = tensors.remove("model.layers.1.self_attn.k_norm.weight");
        tensors.put("model.layers.1.self_attn.k_norm.weight.extra", norm);
        SafetensorsFile.Tensor up = tensors.get("model.layers.0.mlp.up_proj.weight");
        tensors.put("model.layers.0.mlp.up_proj.weight", new SafetensorsFile.Tensor(new long[] {up.shape()[1], up.shape()[0]}, up.data()));
        SafetensorsFile.write(file, tensors, Map.of("format", "pt"));
        try (NDManager manager = NDManager.newBaseManager()) {
            var e = assertThrows(IllegalArgumentException.class, () -> HfCheckpoint.load(dir, manager, CONTEXT));
            assertTrue(e.getMessage().contains("missing model.layers.1.self_attn.k_norm.weight"), e.getMessage());
            assertTrue(e.getMessage().contains("unexpected model.layers.1.self_attn.k_norm.weight.extra"), e.getMessage());
            assertTrue(e.getMessage().contains("model.layers.0.mlp.up_proj.weight is shaped [64, 96], config.json implies [96, 64]"),
                    e.getMessage());
        }
    }

    @Test
    void aConfigTheEngineWouldMisreadIsRefused(@TempDir Path dir) throws Exception {
        HfReference.make(dir, Spec.llama());
        ObjectNode config = (ObjectNode) Json.MAPPER.readTree(Files.readString(dir.resolve("config.json")));
        assertRefused(dir, config.deepCopy().put("architectures", "x").set("architectures", Json.MAPPER.createArrayNode().add("GemmaForCausalLM")),
                "architecture GemmaForCausalLM is not supported");
        assertRefused(dir, config.deepCopy().put("mlp_bias", true), "mlp_bias = true is not supported");
        assertRefused(dir, config.deepCopy().put("hidden_act", "gelu"), "hidden_act = \"gelu\" is not supported");
        assertRefused(dir, config.deepCopy().put("some_new_knob", 3), "config keys the engine does not model: [some_new_knob]");
        ObjectNode yarn = config.deepCopy();
        yarn.putObject("rope_scaling").put("rope_type", "yarn").put("factor", 4.0);
        assertRefused(dir, yarn, "rope_scaling type 'yarn' is not supported");
        assertRefused(dir, config.deepCopy().put("use_sliding_window", true), "sliding-window attention is not implemented");
    }

    private static void assertRefused(Path dir, ObjectNode config, String says) throws Exception {
        Files.writeString(dir.resolve("config.json"), config.toString());
        var e = assertThrows(IllegalArgumentException.class, () -> HfModelConfig.read(dir, 0));
        assertTrue(e.getMessage().contains(says), e.getMessage());
        assertTrue(e.getMessage().contains("config.json"), "the message names the file: " + e.getMessage());
    }

    @Test
    void qwen3ConfigIsReadAsItsShape() throws Exception {
        String json = """
                {"architectures":["Qwen3ForCausalLM"],"attention_bias":false,"attention_dropout":0.0,"bos_token_id":151643,
                 "eos_token_id":151645,"head_dim":128,"hidden_act":"silu","hidden_size":1024,"initializer_range":0.02,
                 "intermediate_size":3072,"max_position_embeddings":40960,"max_window_layers":28,"model_type":"qwen3",
                 "num_attention_heads":16,"num_hidden_layers":28,"num_key_value_heads":8,"rms_norm_eps":1e-06,
                 "rope_scaling":null,"rope_theta":1000000,"sliding_window":null,"tie_word_embeddings":true,
                 "torch_dtype":"bfloat16","transformers_version":"4.51.0","use_cache":true,"use_sliding_window":false,
                 "vocab_size":151936}""";
        HfModelConfig c = HfModelConfig.parse(Json.parse(json), "Qwen3-0.6B", 4096);
        var m = c.model();
        assertEquals(List.of(1024, 28, 16, 8, 128, 3072, 151936, 4096), List.of(m.dModel(), m.layers(), m.heads(), m.kvHeads(),
                m.headSize(), m.ffn(), m.vocab(), m.context()));
        assertTrue(m.qkNorm() && !m.qkvBias() && m.tiedHead());
        assertEquals(40960, c.maxPositions());
        assertEquals("bfloat16", c.dtype());
        assertEquals(List.of(151645), c.eosIds());
        // Qwen3-0.6B's published size: 0.6 B parameters, 0.44 B of them outside the embedding.
        assertEquals(596_049_920L, m.parameters());
    }
}
