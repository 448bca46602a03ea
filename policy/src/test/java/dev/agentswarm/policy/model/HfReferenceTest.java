package dev.agentswarm.policy.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Hugging Face reference itself: its own checks pass, and what it writes is laid out as transformers lays it out. */
class HfReferenceTest {

    @Test
    void selftestPasses() {
        String report = HfReference.selftest();
        assertTrue(report.contains("selftest: 0 failure(s)"), report);
        assertFalse(report.contains("FAIL"), report);
    }

    @Test
    void shardedQwen3HasAnIndexNamingEveryTensorAndItsBytes(@TempDir Path dir) throws IOException {
        HfReference.make(dir, HfReference.Spec.qwen3().withShards(3).withSeed(11).withGenerationConfig(true));
        Set<String> files = new TreeSet<>();
        try (var list = Files.list(dir)) {
            list.forEach(f -> files.add(f.getFileName().toString()));
        }
        assertEquals(new TreeSet<>(List.of("config.json", "generation_config.json", "model.safetensors.index.json",
                "model-00001-of-00003.safetensors", "model-00002-of-00003.safetensors", "model-00003-of-00003.safetensors")), files);

        JsonNode index = Json.MAPPER.readTree(dir.resolve("model.safetensors.index.json").toFile());
        JsonNode map = index.get("weight_map");
        Set<String> names = new HashSet<>();
        map.fieldNames().forEachRemaining(names::add);
        assertEquals(expectedNames("qwen3", 2, false), names);
        long total = 0;
        for (int k = 1; k <= 3; k++) {
            String file = String.format("model-%05d-of-00003.safetensors", k);
            Header h = header(dir.resolve(file));
            total += h.dataBytes;
            Set<String> inFile = new HashSet<>();
            h.json.fieldNames().forEachRemaining(n -> { if (!n.equals("__metadata__")) inFile.add(n); });
            assertFalse(inFile.isEmpty(), file);
            for (String n : inFile) assertEquals(file, map.get(n).asText(), n);
            assertEquals("pt", h.json.get("__metadata__").get("format").asText());
            assertEquals(0, h.headerLength % 8, "header padded to 8");
        }
        assertEquals(total, index.get("metadata").get("total_size").asLong());
        assertTrue(map.has("lm_head.weight"), "untied: the head is saved");

        JsonNode config = Json.MAPPER.readTree(dir.resolve("config.json").toFile());
        assertEquals("Qwen3ForCausalLM", config.get("architectures").get(0).asText());
        assertEquals("qwen3", config.get("model_type").asText());
        assertEquals(24, config.get("head_dim").asInt());
        assertEquals(2, config.get("num_key_value_heads").asInt());
        assertFalse(config.get("attention_bias").asBoolean());
        assertFalse(config.get("tie_word_embeddings").asBoolean());
        assertEquals("bfloat16", config.get("torch_dtype").asText());
        assertEquals(1e-6, config.get("rms_norm_eps").asDouble());
        JsonNode q = header(dir.resolve(map.get("model.layers.0.self_attn.q_proj.weight").asText())).json
                .get("model.layers.0.self_attn.q_proj.weight");
        assertEquals("BF16", q.get("dtype").asText());
        assertEquals(List.of(4 * 24, 64), List.of(q.get("shape").get(0).asInt(), q.get("shape").get(1).asInt()), "(out, in)");
    }

    @Test
    void tiedQwen2IsOneFileWithQkvBiasesAndNoHeadDim(@TempDir Path dir) throws IOException {
        HfReference.make(dir, HfReference.Spec.qwen2().withTie(true).withDtype("fp16"));
        assertTrue(Files.exists(dir.resolve("model.safetensors")));
        assertFalse(Files.exists(dir.resolve("model.safetensors.index.json")));
        Header h = header(dir.resolve("model.safetensors"));
        Set<String> names = new HashSet<>();
        h.json.fieldNames().forEachRemaining(n -> { if (!n.equals("__metadata__")) names.add(n); });
        assertEquals(expectedNames("qwen2", 2, true), names);
        assertEquals("F16", h.json.get("model.embed_tokens.weight").get("dtype").asText());
        JsonNode config = Json.MAPPER.readTree(dir.resolve("config.json").toFile());
        assertEquals("Qwen2ForCausalLM", config.get("architectures").get(0).asText());
        assertFalse(config.has("head_dim"));
        assertFalse(config.has("attention_bias"));
        assertTrue(config.get("tie_word_embeddings").asBoolean());
    }

    @Test
    void llama31RopeScalingIsWrittenAsMetaShipsIt(@TempDir Path dir) throws IOException {
        HfReference.make(dir, HfReference.Spec.llama().withRopeScaling("llama3").withDtype("fp32"));
        JsonNode config = Json.MAPPER.readTree(dir.resolve("config.json").toFile());
        assertEquals("LlamaForCausalLM", config.get("architectures").get(0).asText());
        JsonNode rs = config.get("rope_scaling");
        assertEquals("llama3", rs.get("rope_type").asText());
        assertEquals(8.0, rs.get("factor").asDouble());
        assertEquals(1.0, rs.get("low_freq_factor").asDouble());
        assertEquals(4.0, rs.get("high_freq_factor").asDouble());
        assertEquals(8192, rs.get("original_max_position_embeddings").asInt());
        assertEquals(500000.0, config.get("rope_theta").asDouble());
        assertEquals(1e-5, config.get("rms_norm_eps").asDouble());
    }

    @Test
    void logprobsAreCausalAndGenerateAgreesWithThem(@TempDir Path dir) {
        HfReference.make(dir, HfReference.Spec.llama().withRopeScaling("llama3").withSeed(3));
        int[] seq = {5, 17, 250, 3, 99, 42, 7};
        List<double[]> lps = HfReference.logprobs(dir, List.of(seq, Arrays.copyOf(seq, 4), new int[] {8}));
        assertEquals(3, lps.size());
        double[] full = lps.get(0);
        assertEquals(seq.length, full.length);
        assertTrue(Double.isNaN(full[0]), "no prediction for the first token");
        for (int t = 1; t < full.length; t++) assertTrue(full[t] < 0 && Double.isFinite(full[t]), "log p at " + t);
        for (int t = 1; t < 4; t++) assertEquals(full[t], lps.get(1)[t], 1e-12, "a prefix scores the same at " + t);
        assertEquals(1, lps.get(2).length);

        int[] prompt = {1, 2, 3};
        HfReference.Generated g = HfReference.generate(dir, prompt, 4);
        assertEquals(4, g.ids().length);
        assertEquals(4, g.logprobs().length);
        int[] whole = Arrays.copyOf(prompt, 7);
        System.arraycopy(g.ids(), 0, whole, 3, 4);
        double[] again = HfReference.logprobs(dir, List.of(whole)).get(0);
        assertArrayEquals(g.logprobs(), Arrays.copyOfRange(again, 3, 7), 1e-12);
    }

    @Test
    void failuresCarryTheScriptsMessage(@TempDir Path dir) {
        HfReference.make(dir, HfReference.Spec.qwen3().withVocab(50));
        var e = assertThrows(IllegalStateException.class, () -> HfReference.logprobs(dir, List.of(new int[] {1, 50})));
        assertTrue(e.getMessage().contains("token id outside [0, 50)"), e.getMessage());
    }

    /** Hugging Face's names for this family with 2 layers (tie: no lm_head.weight). */
    static Set<String> expectedNames(String family, int layers, boolean tie) {
        Set<String> names = new HashSet<>(List.of("model.embed_tokens.weight", "model.norm.weight"));
        if (!tie) names.add("lm_head.weight");
        for (int i = 0; i < layers; i++) {
            String p = "model.layers." + i + ".";
            for (String s : List.of("input_layernorm.weight", "post_attention_layernorm.weight", "self_attn.q_proj.weight",
                    "self_attn.k_proj.weight", "self_attn.v_proj.weight", "self_attn.o_proj.weight", "mlp.gate_proj.weight",
                    "mlp.up_proj.weight", "mlp.down_proj.weight"))
                names.add(p + s);
            if (family.equals("qwen3")) names.addAll(List.of(p + "self_attn.q_norm.weight", p + "self_attn.k_norm.weight"));
            if (family.equals("qwen2"))
                names.addAll(List.of(p + "self_attn.q_proj.bias", p + "self_attn.k_proj.bias", p + "self_attn.v_proj.bias"));
        }
        return names;
    }

    record Header(JsonNode json, long headerLength, long dataBytes) {}

    /** A safetensors file's header; checks that the tensors' data fill the rest of the file exactly, back to back. */
    static Header header(Path file) throws IOException {
        byte[] all = Files.readAllBytes(file);
        long n = ByteBuffer.wrap(all, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        JsonNode json = Json.MAPPER.readTree(new String(all, 8, (int) n, StandardCharsets.UTF_8));
        long dataBytes = all.length - 8 - n;
        TreeSet<Long> starts = new TreeSet<>();
        long sum = 0;
        for (Iterator<String> it = json.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (name.equals("__metadata__")) continue;
            JsonNode off = json.get(name).get("data_offsets");
            starts.add(off.get(0).asLong());
            sum += off.get(1).asLong() - off.get(0).asLong();
        }
        assertEquals(dataBytes, sum, file + ": the tensors fill the data section");
        assertEquals(0L, starts.first(), file + ": data starts at 0");
        return new Header(json, n, dataBytes);
    }
}
