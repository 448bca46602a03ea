package dev.agentswarm.policy.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.training.ParameterStore;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModelWeightsTest {

    private static final ModelConfig TINY = ModelConfig.preset("tiny");

    @BeforeAll
    static void noGrad() {
        InferenceThreads.noGradHere();
    }

    @Test
    void savedAndReloadedModelScoresIdentically(@TempDir Path dir) throws Exception {
        try (NDManager m = NDManager.newBaseManager()) {
            CausalLm trained = CausalLm.create(TINY, m, 1);
            CausalLm live = CausalLm.create(TINY, m, 2);
            ParameterStore livePs = new ParameterStore(m, false);
            NDArray ids = CausalLmTest.ids(m, CausalLmTest.randomTokens(3, 20));
            float[] expected = trained.tokenLogProbs(new ParameterStore(m, false), ids, false).toFloatArray();
            float[] before = live.tokenLogProbs(livePs, ids, false).toFloatArray(); // fills the store's cache
            NDArray embedBefore = live.namedParameters().get("embed.weight").getArray();

            Path file = dir.resolve("weights.safetensors");
            ModelWeights.save(trained, 42, file);
            assertEquals(42, ModelWeights.load(live, file));

            assertSame(embedBefore, live.namedParameters().get("embed.weight").getArray(), "copied in place");
            float[] after = live.tokenLogProbs(livePs, ids, false).toFloatArray();
            assertArrayEquals(expected, after, "the cached parameter store sees the new weights");
            assertNotEquals(before[0], after[0]);
        }
    }

    @Test
    void loadingKeepsEarlierZeroCopyViewsOfTheWeightsValid() {
        // The hybrid decoder reads weights through views taken once; a load must write through them.
        try (NDManager m = NDManager.newBaseManager()) {
            CausalLm live = CausalLm.create(TINY, m, 1);
            CausalLm next = CausalLm.create(TINY, m, 2);
            NDArray embed = live.namedParameters().get("embed.weight").getArray();
            FloatBuffer view = embed.toByteBuffer(true).asFloatBuffer();
            float[] expected = next.namedParameters().get("embed.weight").getArray().toFloatArray();
            assertNotEquals(expected[0], view.get(0));

            ModelWeights.load(live, ModelWeights.export(next, 3));
            float[] seen = new float[expected.length];
            view.get(0, seen);
            assertArrayEquals(expected, seen, "loaded");

            ModelWeights.copy(CausalLm.create(TINY, m, 4), live);
            view.get(0, seen);
            assertArrayEquals(CausalLm.create(TINY, m, 4).namedParameters().get("embed.weight").getArray().toFloatArray(), seen,
                    "copied");
        }
    }

    @Test
    void exportCarriesVersionAndShape() {
        try (NDManager m = NDManager.newBaseManager()) {
            byte[] bytes = ModelWeights.export(CausalLm.create(TINY, m, 1), 7);
            var contents = SafetensorsFile.decode(bytes);
            assertEquals(7, ModelWeights.versionOf(contents));
            assertTrue(contents.metadata().get(ModelWeights.SHAPE_KEY).startsWith("tiny d=64 layers=2"));
            assertEquals(2 + 7 * TINY.layers(), contents.tensors().size());
            long headerLength = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong();
            assertEquals(0, headerLength % 8, "header padded to 8 bytes");
            assertEquals(8 + headerLength + TINY.parameters() * 4, bytes.length);
        }
    }

    @Test
    void mismatchedWeightsAreRefusedAndLeaveTheModelUntouched() {
        try (NDManager m = NDManager.newBaseManager()) {
            CausalLm model = CausalLm.create(TINY, m, 1);
            float[] before = model.namedParameters().get("embed.weight").getArray().toFloatArray();
            byte[] otherShape = ModelWeights.export(CausalLm.create(TINY.withVocab(300), m, 2), 3);
            var e = assertThrows(IllegalArgumentException.class, () -> ModelWeights.load(model, otherShape));
            assertTrue(e.getMessage().contains("embed.weight shaped [300, 64]"), e.getMessage());
            assertArrayEquals(before, model.namedParameters().get("embed.weight").getArray().toFloatArray());

            var junk = assertThrows(IllegalArgumentException.class,
                    () -> ModelWeights.load(model, "not safetensors".getBytes(StandardCharsets.UTF_8)));
            assertTrue(junk.getMessage().contains("not a safetensors file"), junk.getMessage());
        }
    }

    @Test
    void halfAndBfloat16TensorsAreWidenedInJava() {
        // [1.0, -2.5, 65504 (f16 max), subnormal 2^-24] in F16; [1.0, -2.5] in BF16.
        short[] f16 = {0x3c00, (short) 0xc100, 0x7bff, 0x0001};
        short[] bf16 = {0x3f80, (short) 0xc020};
        String header = "{\"a\":{\"dtype\":\"F16\",\"shape\":[4],\"data_offsets\":[0,8]},"
                + "\"b\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[8,12]},\"__metadata__\":{\"k\":\"v\"}}";
        byte[] json = header.getBytes(StandardCharsets.UTF_8);
        ByteBuffer buf = ByteBuffer.allocate(8 + json.length + 12).order(ByteOrder.LITTLE_ENDIAN);
        buf.putLong(json.length).put(json);
        for (short s : f16) buf.putShort(s);
        for (short s : bf16) buf.putShort(s);
        var contents = SafetensorsFile.decode(buf.array());
        assertArrayEquals(new float[] {1f, -2.5f, 65504f, 0x1p-24f}, floats(contents.tensors().get("a")));
        assertArrayEquals(new float[] {1f, -2.5f}, floats(contents.tensors().get("b")));
        assertEquals(Map.of("k", "v"), contents.metadata());
    }

    @Test
    void truncatedOrForeignDtypesAreNamed() {
        Map<String, SafetensorsFile.Tensor> one = new LinkedHashMap<>();
        one.put("w", new SafetensorsFile.Tensor(new long[] {2}, ByteBuffer.allocate(8)));
        byte[] ok = SafetensorsFile.encode(one, Map.of());
        byte[] cut = java.util.Arrays.copyOf(ok, ok.length - 4);
        var e = assertThrows(IllegalArgumentException.class, () -> SafetensorsFile.decode(cut));
        assertTrue(e.getMessage().contains("tensor w: byte range"), e.getMessage());
        byte[] i64 = new String(ok, StandardCharsets.ISO_8859_1).replace("F32", "I64").getBytes(StandardCharsets.ISO_8859_1);
        var d = assertThrows(IllegalArgumentException.class, () -> SafetensorsFile.decode(i64));
        assertTrue(d.getMessage().contains("dtype I64 is not supported"), d.getMessage());
    }

    private static float[] floats(SafetensorsFile.Tensor t) {
        var fb = t.data().duplicate().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
        float[] out = new float[fb.remaining()];
        fb.get(out);
        return out;
    }
}
