package dev.agentswarm.policy.hf;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.policy.model.ModelConfig;
import dev.agentswarm.policy.model.RopeScaling;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A Hugging Face {@code config.json} of the families the engine runs — {@code Qwen3ForCausalLM},
 * {@code Qwen2ForCausalLM} (Qwen2.5) and {@code LlamaForCausalLM} (Llama-3.x) — read into a
 * {@link ModelConfig}. Both the transformers 4 spelling ({@code rope_theta}, {@code rope_scaling},
 * {@code torch_dtype}) and the transformers 5 one ({@code rope_parameters}, {@code dtype}) are read.
 *
 * <p>Every key is either modelled, checked to hold the value the engine assumes, or known to change
 * nothing in the forward pass; any other key is refused by name, as is a value the engine would
 * silently compute differently (a sliding window, attention or MLP biases where the family has
 * none, another activation, dropout in attention).
 *
 * @param context the longest sequence the engine serves: {@code max_position_embeddings} unless a
 *     shorter one is asked for (rotary tables and KV caches are sized by it)
 * @param dtype the checkpoint's stored precision ({@code bfloat16}, {@code float16}, {@code float32})
 */
public record HfModelConfig(String architecture, ModelConfig model, int maxPositions, String dtype,
                            List<Integer> bosIds, List<Integer> eosIds, JsonNode json) {

    public static final Set<String> ARCHITECTURES = Set.of("Qwen3ForCausalLM", "Qwen2ForCausalLM", "LlamaForCausalLM");

    private static final Map<String, String> MODEL_TYPES = Map.of(
            "Qwen3ForCausalLM", "qwen3", "Qwen2ForCausalLM", "qwen2", "LlamaForCausalLM", "llama");

    /** Read into the model's shape. */
    private static final Set<String> MODELLED = Set.of("architectures", "model_type", "hidden_size", "intermediate_size",
            "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim", "vocab_size",
            "max_position_embeddings", "rms_norm_eps", "rope_theta", "rope_scaling", "rope_parameters", "tie_word_embeddings",
            "torch_dtype", "dtype", "bos_token_id", "eos_token_id");

    /** Checked for the value the engine computes with. */
    private static final Set<String> CHECKED = Set.of("hidden_act", "attention_bias", "mlp_bias", "attention_dropout",
            "use_sliding_window", "sliding_window", "max_window_layers", "layer_types", "pretraining_tp");

    /** Training-time, generation-time or bookkeeping keys that do not change the forward pass. */
    private static final Set<String> INERT = Set.of("initializer_range", "use_cache", "transformers_version", "pad_token_id",
            "_name_or_path", "name_or_path", "output_attentions", "output_hidden_states", "return_dict", "torchscript",
            "use_return_dict", "chunk_size_feed_forward", "is_encoder_decoder", "is_decoder", "add_cross_attention",
            "tie_encoder_decoder", "problem_type", "id2label", "label2id", "task_specific_params", "finetuning_task",
            "tokenizer_class", "prefix", "sep_token_id", "decoder_start_token_id", "quantization_config_absent",
            "_attn_implementation_autoset", "use_mrope", "keys_to_ignore_at_inference", "cache_implementation");

    /**
     * Reads {@code dir/config.json}.
     *
     * @param context 0 for {@code max_position_embeddings}, else a shorter limit
     */
    public static HfModelConfig read(Path dir, int context) throws IOException {
        Path file = dir.resolve("config.json");
        if (!Files.isRegularFile(file)) throw new IllegalArgumentException(dir + " has no config.json: not a Hugging Face model folder");
        JsonNode json;
        try {
            json = Json.MAPPER.readTree(Files.readString(file));
        } catch (IOException e) {
            throw new IllegalArgumentException(file + " is not JSON: " + e.getMessage(), e);
        }
        try {
            return parse(json, dir.getFileName() == null ? "model" : dir.getFileName().toString(), context);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }

    /** The dtype to save trained weights in: the published one when it is a half type, else float32. */
    public String savedDtype() {
        return dtype.equals("bfloat16") || dtype.equals("float16") ? dtype : "float32";
    }

    /** The same config served with another context (rotary tables and caches are sized by it). */
    public HfModelConfig withContext(int context) {
        if (context < 1 || context > maxPositions) {
            throw new IllegalArgumentException("context " + context + " outside 1.." + maxPositions + " (max_position_embeddings)");
        }
        return new HfModelConfig(architecture, model.withContext(context), maxPositions, dtype, bosIds, eosIds, json);
    }

    public static HfModelConfig parse(JsonNode json, String name, int context) {
        if (json.has("quantization_config")) {
            throw new IllegalArgumentException("quantized checkpoints are not supported (quantization_config "
                    + json.get("quantization_config").path("quant_method").asText("?") + ")");
        }
        JsonNode archs = json.path("architectures");
        if (!archs.isArray() || archs.size() != 1) {
            throw new IllegalArgumentException("architectures must name one of " + ARCHITECTURES + ", got " + archs);
        }
        String arch = archs.get(0).asText();
        if (!ARCHITECTURES.contains(arch)) {
            throw new IllegalArgumentException("architecture " + arch + " is not supported (supported: "
                    + String.join(", ", ARCHITECTURES.stream().sorted().toList()) + ")");
        }
        String family = MODEL_TYPES.get(arch);
        if (json.has("model_type") && !json.get("model_type").asText().equals(family)) {
            throw new IllegalArgumentException("model_type " + json.get("model_type").asText() + " does not match " + arch);
        }
        List<String> unknown = new ArrayList<>();
        for (Iterator<String> it = json.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!MODELLED.contains(key) && !CHECKED.contains(key) && !INERT.contains(key)) unknown.add(key);
        }
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("config keys the engine does not model: " + unknown
                    + " (refused rather than ignored: they may change what the model computes)");
        }
        check(json, "hidden_act", "silu");
        check(json, "attention_dropout", 0.0);
        check(json, "pretraining_tp", 1); // >1 only splits Llama's matmuls; refused to keep the arithmetic HF's
        if (json.path("use_sliding_window").asBoolean(false)) {
            throw new IllegalArgumentException("use_sliding_window = true is not supported: sliding-window attention is not implemented");
        }
        JsonNode layerTypes = json.path("layer_types");
        if (layerTypes.isArray()) {
            for (JsonNode t : layerTypes) {
                if (!t.asText().equals("full_attention")) {
                    throw new IllegalArgumentException("layer_types has " + t.asText() + ": only full_attention is supported");
                }
            }
        }
        // Qwen2 always has q/k/v biases and no attention_bias key; in Qwen3 and Llama attention_bias
        // would add biases to all four projections and mlp_bias to the MLP: neither is implemented.
        if (json.path("attention_bias").asBoolean(false)) {
            throw new IllegalArgumentException("attention_bias = true is not supported for " + arch);
        }
        if (json.path("mlp_bias").asBoolean(false)) throw new IllegalArgumentException("mlp_bias = true is not supported");

        int hidden = required(json, "hidden_size");
        int heads = required(json, "num_attention_heads");
        int kvHeads = json.hasNonNull("num_key_value_heads") ? json.get("num_key_value_heads").asInt() : heads;
        // Qwen2 has no head_dim: hidden / heads there, as in transformers.
        int headDim = json.hasNonNull("head_dim") ? json.get("head_dim").asInt() : hidden / heads;
        if (!json.hasNonNull("head_dim") && hidden % heads != 0) {
            throw new IllegalArgumentException("hidden_size " + hidden + " is not a multiple of num_attention_heads " + heads);
        }
        int maxPositions = required(json, "max_position_embeddings");
        if (context < 0 || context > maxPositions) {
            throw new IllegalArgumentException("context " + context + " outside 1.." + maxPositions + " (max_position_embeddings)");
        }
        JsonNode rope = json.hasNonNull("rope_parameters") ? json.get("rope_parameters") : json.path("rope_scaling");
        double theta = json.hasNonNull("rope_theta") ? json.get("rope_theta").asDouble()
                : rope.hasNonNull("rope_theta") ? rope.get("rope_theta").asDouble() : 10_000;
        String dtype = json.hasNonNull("dtype") ? json.get("dtype").asText() : json.path("torch_dtype").asText("float32");
        ModelConfig model = new ModelConfig(name, hidden, required(json, "num_hidden_layers"), heads, kvHeads, headDim,
                required(json, "intermediate_size"), required(json, "vocab_size"), context == 0 ? maxPositions : context, theta,
                ropeScaling(rope), json.path("rms_norm_eps").asDouble(1e-6), family.equals("qwen3"), family.equals("qwen2"),
                json.path("tie_word_embeddings").asBoolean(false));
        return new HfModelConfig(arch, model, maxPositions, dtype, ids(json.path("bos_token_id")), ids(json.path("eos_token_id")),
                json);
    }

    /** {@code rope_scaling} (or transformers 5's {@code rope_parameters}); absent or null is none. */
    static RopeScaling ropeScaling(JsonNode rope) {
        if (rope == null || rope.isNull() || rope.isMissingNode()) return RopeScaling.NONE;
        String type = rope.hasNonNull("rope_type") ? rope.get("rope_type").asText() : rope.path("type").asText("default");
        return switch (type) {
            case "default" -> RopeScaling.NONE;
            case "linear" -> RopeScaling.linear(rope.path("factor").asDouble(0));
            case "llama3" -> RopeScaling.llama3(rope.path("factor").asDouble(0), rope.path("low_freq_factor").asDouble(0),
                    rope.path("high_freq_factor").asDouble(0), rope.path("original_max_position_embeddings").asInt(0));
            default -> new RopeScaling(type, 1, 0, 0, 0); // refuses with the supported list
        };
    }

    private static List<Integer> ids(JsonNode node) {
        List<Integer> out = new ArrayList<>();
        if (node.isArray()) node.forEach(n -> out.add(n.asInt()));
        else if (node.isNumber()) out.add(node.asInt());
        return List.copyOf(out);
    }

    private static int required(JsonNode json, String key) {
        JsonNode v = json.get(key);
        if (v == null || !v.canConvertToInt() || v.asInt() <= 0) {
            throw new IllegalArgumentException(key + " must be a positive integer, got " + v);
        }
        return v.asInt();
    }

    private static void check(JsonNode json, String key, Object expected) {
        JsonNode v = json.get(key);
        if (v == null || v.isNull()) return;
        boolean ok = expected instanceof String s ? v.asText().equals(s)
                : expected instanceof Integer i ? v.asInt() == i : v.asDouble() == ((Double) expected);
        if (!ok) throw new IllegalArgumentException(key + " = " + v + " is not supported (the engine computes with " + expected + ")");
    }
}
