package dev.agentswarm.policy.hf;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Parameter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.LoraAdapter;
import dev.agentswarm.policy.model.LoraSettings;
import dev.agentswarm.policy.model.LoraTarget;
import dev.agentswarm.policy.model.ModelWeights;
import dev.agentswarm.policy.model.SafetensorsFile;
import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A LoRA adapter folder as PEFT's {@code save_pretrained} writes it and {@code PeftModel.from_pretrained}
 * reads it: {@code adapter_config.json} and {@code adapter_model.safetensors} (F32) with tensors named
 * {@code base_model.model.model.layers.<i>.self_attn.q_proj.lora_A.weight} (r × in) and
 * {@code ...lora_B.weight} (out × r). Loading refuses what the engine does not compute (rsLoRA,
 * DoRA, per-layer ranks, biases, extra saved modules) and any name or shape that does not fit the
 * model, before it changes anything.
 */
public final class PeftAdapter {

    public static final String CONFIG = "adapter_config.json";
    public static final String WEIGHTS = "adapter_model.safetensors";

    private PeftAdapter() {}

    /** Writes {@code adapter} into {@code dir}; {@code baseModel} becomes base_model_name_or_path (null allowed). */
    public static void save(LoraAdapter adapter, Path dir, String baseModel) throws IOException {
        Files.createDirectories(dir);
        Map<String, SafetensorsFile.Tensor> tensors = new LinkedHashMap<>();
        for (Map.Entry<String, Parameter> e : adapter.namedParameters().entrySet()) {
            NDArray a = e.getValue().getArray();
            tensors.put(e.getKey(), new SafetensorsFile.Tensor(a.getShape().getShape(), a.toByteBuffer().order(ByteOrder.LITTLE_ENDIAN)));
        }
        SafetensorsFile.write(dir.resolve(WEIGHTS), tensors, Map.of("format", "pt"));
        byte[] json = Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(config(adapter.settings(), baseModel));
        Path partial = Files.createTempFile(dir.toAbsolutePath(), CONFIG, ".partial");
        try {
            Files.write(partial, json);
            Files.move(partial, dir.resolve(CONFIG), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(partial);
        }
    }

    /** PEFT's LoraConfig fields, as its save_pretrained writes them for this adapter. */
    static ObjectNode config(LoraSettings s, String baseModel) {
        ObjectNode c = Json.object();
        c.putObject("alpha_pattern");
        c.putNull("auto_mapping");
        if (baseModel == null) c.putNull("base_model_name_or_path");
        else c.put("base_model_name_or_path", baseModel);
        c.put("bias", "none");
        c.put("fan_in_fan_out", false);
        c.put("inference_mode", true);
        c.put("init_lora_weights", true);
        c.putNull("layers_pattern");
        c.putNull("layers_to_transform");
        if (s.alpha() == Math.rint(s.alpha()) && Math.abs(s.alpha()) < 1e9) c.put("lora_alpha", (long) s.alpha());
        else c.put("lora_alpha", s.alpha());
        c.put("lora_dropout", s.dropout());
        c.putNull("modules_to_save");
        c.put("peft_type", "LORA");
        c.put("r", s.rank());
        c.putObject("rank_pattern");
        c.putNull("revision");
        ArrayNode targets = c.putArray("target_modules");
        for (LoraTarget t : s.targets()) targets.add(t.peftName());
        c.put("task_type", "CAUSAL_LM");
        c.put("use_dora", false);
        c.put("use_rslora", false);
        return c;
    }

    /** What an adapter folder's config says. */
    public record Config(LoraSettings settings, String baseModel) {}

    /** Reads and checks {@code dir}'s adapter_config.json. */
    public static Config readConfig(Path dir) throws IOException {
        Path file = dir.resolve(CONFIG);
        if (!Files.isRegularFile(file)) throw new IllegalArgumentException(dir + " has no " + CONFIG + ": not a PEFT adapter folder");
        JsonNode c = Json.parse(Files.readString(file, StandardCharsets.UTF_8));
        String where = file + ": ";
        expect(c, "peft_type", "LORA", where);
        if (c.has("task_type") && !c.get("task_type").isNull()) expect(c, "task_type", "CAUSAL_LM", where);
        expect(c, "bias", "none", where);
        for (String flag : List.of("use_rslora", "use_dora", "fan_in_fan_out")) {
            if (c.path(flag).asBoolean(false)) throw new IllegalArgumentException(where + flag + " = true is not supported");
        }
        for (String pattern : List.of("rank_pattern", "alpha_pattern")) {
            if (c.path(pattern).size() > 0) throw new IllegalArgumentException(where + pattern + " (per-module ranks) is not supported");
        }
        for (String none : List.of("layers_to_transform", "modules_to_save")) {
            JsonNode v = c.path(none);
            if (!v.isMissingNode() && !v.isNull() && !(v.isArray() && v.isEmpty())) {
                throw new IllegalArgumentException(where + none + " = " + v + " is not supported (only null)");
            }
        }
        if (!c.path("r").canConvertToInt() || !c.path("lora_alpha").isNumber()) {
            throw new IllegalArgumentException(where + "needs integer r and numeric lora_alpha");
        }
        JsonNode modules = c.path("target_modules");
        List<String> names = new ArrayList<>();
        if (modules.isArray()) modules.forEach(m -> names.add(m.asText()));
        else if (modules.isTextual()) names.add(modules.asText()); // a regular expression is refused by parse, except all-linear
        else throw new IllegalArgumentException(where + "target_modules must be a list of module names or \"all-linear\"");
        try {
            LoraSettings s = new LoraSettings(c.get("r").asInt(), c.get("lora_alpha").asDouble(), c.path("lora_dropout").asDouble(0),
                    LoraTarget.parseAll(names));
            JsonNode base = c.path("base_model_name_or_path");
            return new Config(s, base.isTextual() ? base.asText() : null);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + e.getMessage(), e);
        }
    }

    /**
     * Attaches the adapter saved in {@code dir} to {@code model} (which must have none) with its
     * saved A and B. Nothing is attached when a name or shape does not fit.
     */
    public static LoraAdapter load(CausalLm model, Path dir, NDManager manager) throws IOException {
        Config config = readConfig(dir);
        SafetensorsFile.Contents contents = SafetensorsFile.read(dir.resolve(WEIGHTS));
        LoraAdapter adapter = LoraAdapter.attach(model, config.settings(), manager, 0);
        try {
            copy(adapter, contents, dir);
            return adapter;
        } catch (RuntimeException e) {
            adapter.close();
            throw e;
        }
    }

    /** Copies the A and B saved in {@code dir} into {@code adapter}, whose settings must match the folder's. */
    public static void loadInto(LoraAdapter adapter, Path dir) throws IOException {
        LoraSettings saved = readConfig(dir).settings();
        LoraSettings ours = adapter.settings();
        if (saved.rank() != ours.rank() || saved.alpha() != ours.alpha() || !saved.targets().equals(ours.targets())) {
            throw new IllegalArgumentException(dir + " holds an adapter with r=" + saved.rank() + ", alpha=" + saved.alpha() + ", targets="
                    + saved.targets() + "; this one has r=" + ours.rank() + ", alpha=" + ours.alpha() + ", targets=" + ours.targets());
        }
        copy(adapter, SafetensorsFile.read(dir.resolve(WEIGHTS)), dir);
    }

    private static void copy(LoraAdapter adapter, SafetensorsFile.Contents contents, Path dir) {
        Map<String, Parameter> params = adapter.namedParameters();
        for (Map.Entry<String, Parameter> e : params.entrySet()) {
            SafetensorsFile.Tensor t = contents.tensors().get(e.getKey());
            long[] expected = e.getValue().getArray().getShape().getShape();
            if (t == null) throw new IllegalArgumentException(dir.resolve(WEIGHTS) + " lacks " + e.getKey());
            if (!Arrays.equals(expected, t.shape())) {
                throw new IllegalArgumentException(dir.resolve(WEIGHTS) + ": " + e.getKey() + " is shaped " + Arrays.toString(t.shape())
                        + ", the model needs " + Arrays.toString(expected) + " (another base model or rank?)");
            }
        }
        for (String name : contents.tensors().keySet()) {
            if (!params.containsKey(name)) {
                throw new IllegalArgumentException(dir.resolve(WEIGHTS) + " has " + name + ", which this model's adapter does not");
            }
        }
        for (Map.Entry<String, Parameter> e : params.entrySet()) {
            ModelWeights.overwrite(e.getValue().getArray(), contents.tensors().get(e.getKey()).data());
        }
    }

    private static void expect(JsonNode c, String key, String value, String where) {
        if (!value.equals(c.path(key).asText(null))) {
            throw new IllegalArgumentException(where + key + " is " + c.path(key) + ", only \"" + value + "\" is supported");
        }
    }
}
