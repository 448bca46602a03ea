package dev.agentswarm.learner.lora;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.policy.hf.PeftAdapter;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.LoraAdapter;
import dev.agentswarm.policy.model.LoraSettings;
import dev.agentswarm.policy.model.LoraTarget;
import dev.agentswarm.policy.model.ModelConfig;
import dev.agentswarm.policy.model.ModelWeights;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The adapter on a Qwen3-shaped model: no change when fresh, merge equals the live adapter, PEFT files round-trip. */
class LoraAdapterTest {

    private static final ModelConfig C = TinyQwen3.CONFIG;

    @Test
    void aFreshAdapterChangesNothingAndFreezesTheBase() {
        try (NDManager root = NDManager.newBaseManager()) {
            CausalLm model = CausalLm.create(C, root, 1);
            float[] before = TinyQwen3.logits(model, root);
            LoraAdapter adapter = LoraAdapter.attach(model, LoraSettings.allLinear(4, 8, 0), root, 3);
            assertArrayEquals(before, TinyQwen3.logits(model, root), 0f, "B = 0: the update is exactly zero");
            assertEquals(adapter.namedParameters(), model.trainableParameters());
            assertEquals(2L * 7 * 2, adapter.namedParameters().size(), "A and B for 7 layers of 2 decoder layers");
            assertEquals(LoraAdapter.parameterCount(C, adapter.settings()), adapter.parameterCount());
            for (var p : model.namedParameters().values()) {
                assertFalse(p.requiresGradient(), p.getName());
                assertFalse(p.getArray().hasGradient(), "a frozen base weight has no gradient buffer");
            }
            // PEFT's Kaiming-uniform(a = √5): A within ±1/√in.
            float[] a = adapter.namedParameters().get(LoraAdapter.name(0, LoraTarget.DOWN_PROJ, "A")).getArray().toFloatArray();
            float bound = (float) (1 / Math.sqrt(C.ffn()));
            for (float v : a) assertTrue(Math.abs(v) <= bound);
            adapter.close();
            assertNull(model.adapter());
            assertTrue(model.namedParameters().values().iterator().next().requiresGradient(), "detached: the base trains again");
        }
    }

    @Test
    void aQueryAdapterChangesOnlyTheQueryRowsOfTheFusedProjection() {
        try (NDManager root = NDManager.newBaseManager()) {
            CausalLm model = CausalLm.create(C, root, 1);
            LoraAdapter adapter = LoraAdapter.attach(model, new LoraSettings(2, 4, 0, EnumSet.of(LoraTarget.Q_PROJ, LoraTarget.V_PROJ)), root, 3);
            TinyQwen3.randomiseB(adapter, 5);
            try (NDManager m = root.newSubManager()) {
                NDArray delta = adapter.weightDelta("blocks.1.attn.qkv.weight", m);
                int q = C.attentionWidth();
                int kv = C.kvHeads() * C.headSize();
                assertArrayEquals(new long[] {q + 2L * kv, C.dModel()}, delta.getShape().getShape());
                assertTrue(delta.get(new NDIndex("0:{}", q)).abs().max().getFloat() > 0, "query rows change");
                assertEquals(0, delta.get(new NDIndex("{}:{}", q, q + kv)).abs().max().getFloat(), "key rows do not");
                assertTrue(delta.get(new NDIndex("{}:", q + kv)).abs().max().getFloat() > 0, "value rows change");
                assertNull(adapter.weightDelta("blocks.0.mlp.up.weight", m));
            }
        }
    }

    @Test
    void mergedWeightsGiveTheLogitsOfBasePlusAdapter() {
        try (NDManager root = NDManager.newBaseManager()) {
            CausalLm model = CausalLm.create(C, root, 1);
            float[] base = TinyQwen3.logits(model, root);
            LoraAdapter adapter = LoraAdapter.attach(model, LoraSettings.allLinear(4, 8, 0.1), root, 3);
            TinyQwen3.randomiseB(adapter, 5);
            float[] adapted = TinyQwen3.logits(model, root);
            assertTrue(TinyQwen3.maxAbsDiff(base, adapted) > 1e-2, "the adapter matters");
            try (LoraAdapter.Off off = adapter.disabled()) {
                assertArrayEquals(base, TinyQwen3.logits(model, root), 0f, "switched off: exactly the base");
            }
            // What servers receive: merged weights, loaded into a model with no adapter.
            CausalLm served = CausalLm.allocate(C, root);
            ModelWeights.load(served, ModelWeights.exportMerged(model, 7));
            assertTrue(TinyQwen3.maxAbsDiff(adapted, TinyQwen3.logits(served, root)) < 1e-5);
            // merge_and_unload in place.
            adapter.mergeAndUnload();
            assertNull(model.adapter());
            float[] merged = TinyQwen3.logits(model, root);
            assertTrue(TinyQwen3.maxAbsDiff(adapted, merged) < 1e-5, "max |Δ| " + TinyQwen3.maxAbsDiff(adapted, merged));
        }
    }

    @Test
    void peftFilesRoundTripAndMismatchesAreRefused(@TempDir Path dir) throws Exception {
        try (NDManager root = NDManager.newBaseManager()) {
            CausalLm model = CausalLm.create(C, root, 1);
            LoraSettings settings = new LoraSettings(4, 16, 0.05, EnumSet.of(LoraTarget.Q_PROJ, LoraTarget.K_PROJ, LoraTarget.V_PROJ,
                    LoraTarget.O_PROJ, LoraTarget.DOWN_PROJ));
            LoraAdapter adapter = LoraAdapter.attach(model, settings, root, 3);
            TinyQwen3.randomiseB(adapter, 5);
            float[] adapted = TinyQwen3.logits(model, root);
            Path folder = dir.resolve("adapter");
            PeftAdapter.save(adapter, folder, "Qwen/Qwen3-0.6B");

            JsonNode json = Json.parse(Files.readString(folder.resolve(PeftAdapter.CONFIG)));
            assertEquals("LORA", json.get("peft_type").asText());
            assertEquals("CAUSAL_LM", json.get("task_type").asText());
            assertEquals(4, json.get("r").asInt());
            assertEquals(16, json.get("lora_alpha").asInt());
            assertEquals(0.05, json.get("lora_dropout").asDouble(), 1e-12);
            assertEquals("none", json.get("bias").asText());
            assertEquals("Qwen/Qwen3-0.6B", json.get("base_model_name_or_path").asText());
            assertFalse(json.get("fan_in_fan_out").asBoolean());
            assertFalse(json.get("use_rslora").asBoolean());
            assertEquals(List.of("q_proj", "k_proj", "v_proj", "o_proj", "down_proj"),
                    Json.MAPPER.convertValue(json.get("target_modules"), List.class));
            var tensors = dev.agentswarm.policy.model.SafetensorsFile.read(folder.resolve(PeftAdapter.WEIGHTS)).tensors();
            assertEquals(2 * 5 * 2, tensors.size());
            assertArrayEquals(new long[] {4, 64}, tensors.get("base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight").shape());
            assertArrayEquals(new long[] {48, 4}, tensors.get("base_model.model.model.layers.1.self_attn.k_proj.lora_B.weight").shape());
            assertArrayEquals(new long[] {4, 96}, tensors.get("base_model.model.model.layers.1.mlp.down_proj.lora_A.weight").shape());

            CausalLm again = CausalLm.create(C, root, 1);
            LoraAdapter loaded = PeftAdapter.load(again, folder, root);
            assertEquals(settings, loaded.settings());
            assertArrayEquals(adapted, TinyQwen3.logits(again, root), 0f, "same base, same adapter: the same logits");

            // Another base shape: refused, and nothing stays attached.
            CausalLm other = CausalLm.create(C.withVocab(300).withContext(128), root, 1);
            CausalLm wider = CausalLm.create(new ModelConfig("wider", 64, 2, 4, 2, 32, 96, 272, 256, 1_000_000, null, 1e-6, true, false, false),
                    root, 1);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PeftAdapter.load(wider, folder, root));
            assertTrue(e.getMessage().contains("shaped"), e.getMessage());
            assertNull(wider.adapter());
            assertTrue(wider.namedParameters().values().iterator().next().requiresGradient());
            PeftAdapter.load(other, folder, root).close(); // vocabulary and context are not the adapter's business
            // Another rank into a live adapter: refused by name.
            LoraAdapter rank8 = LoraAdapter.attach(CausalLm.create(C, root, 1), LoraSettings.allLinear(8, 16, 0), root, 1);
            assertThrows(IllegalArgumentException.class, () -> PeftAdapter.loadInto(rank8, folder));
            // What the engine does not compute is refused.
            Files.writeString(folder.resolve(PeftAdapter.CONFIG), json.toString().replace("\"use_rslora\":false", "\"use_rslora\":true"));
            e = assertThrows(IllegalArgumentException.class, () -> PeftAdapter.readConfig(folder));
            assertTrue(e.getMessage().contains("use_rslora"), e.getMessage());
        }
    }

    @Test
    void settingsComeFromTheLearnersConfigurationWithChecks() {
        assertTrue(LoraSettings.fromConfig(ConfigFactory.load()).isEmpty(), "reference.conf: off by default");
        var defaults = ConfigFactory.parseString("agentswarm.learner.lora.enabled = true").withFallback(ConfigFactory.load());
        assertEquals(LoraSettings.allLinear(16, 32, 0.05), LoraSettings.fromConfig(defaults).orElseThrow());
        var base = ConfigFactory.parseString("agentswarm.learner.lora { enabled = true, rank = 8, alpha = 16, dropout = 0.05,"
                + " targets = [q_proj, v_proj] }");
        LoraSettings s = LoraSettings.fromConfig(base).orElseThrow();
        assertEquals(new LoraSettings(8, 16, 0.05, EnumSet.of(LoraTarget.Q_PROJ, LoraTarget.V_PROJ)), s);
        assertEquals(2.0, s.scaling());
        assertTrue(LoraSettings.fromConfig(ConfigFactory.parseString("agentswarm.learner.lora.enabled = false")).isEmpty());
        assertEquals(EnumSet.allOf(LoraTarget.class), LoraSettings.fromConfig(ConfigFactory.parseString(
                "agentswarm.learner.lora { enabled = true, rank = 8, alpha = 16, dropout = 0, targets = [all-linear] }")).orElseThrow().targets());
        for (String bad : List.of("rank = 0", "alpha = 0", "dropout = 1", "targets = [lm_head]", "targets = []")) {
            var c = ConfigFactory.parseString("agentswarm.learner.lora." + bad).withFallback(base);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LoraSettings.fromConfig(c), bad);
            assertTrue(e.getMessage().startsWith(LoraSettings.PATH), e.getMessage());
        }
    }
}
