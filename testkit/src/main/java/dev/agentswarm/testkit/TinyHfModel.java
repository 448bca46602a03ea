package dev.agentswarm.testkit;

import ai.djl.ndarray.NDManager;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.policy.hf.HfModelConfig;
import dev.agentswarm.policy.hf.HfSaver;
import dev.agentswarm.policy.model.CausalLm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * A tiny Hugging Face model folder for tests of the commands that take {@code --model}: a
 * Qwen3-shaped config (grouped-query attention, q/k norms, head size apart from hidden/heads), BF16
 * weights drawn from a seed and saved in Hugging Face's layout, a word-level tokenizer.json with
 * the ChatML specials and a ChatML chat template in tokenizer_config.json. It runs in milliseconds,
 * needs no download and no fixture.
 */
public final class TinyHfModel {

    /** The words the tokenizer knows; anything else is {@code <unk>}. */
    public static final String[] WORDS = {"user", "assistant", "system", "tool", "what", "is", "the", "answer", "2", "4", "6",
        "8", "10", "+", "*", "?", "yes", "no", "hello", "world", "final", ":"};

    private static final int SPECIALS = 4; // <unk>, <|im_start|>, <|im_end|>, <|endoftext|>

    /** The model's vocab_size: every id the tokenizer has, so every id can be sampled. */
    public static final int VOCAB = SPECIALS + WORDS.length;

    private TinyHfModel() {}

    /** Writes the folder into {@code dir} and returns it. */
    public static Path write(Path dir, long seed) throws IOException {
        Files.createDirectories(dir);
        StringBuilder vocab = new StringBuilder("\"<unk>\": 0, \"<|im_start|>\": 1, \"<|im_end|>\": 2, \"<|endoftext|>\": 3");
        for (int i = 0; i < WORDS.length; i++) vocab.append(", \"").append(WORDS[i]).append("\": ").append(SPECIALS + i);
        Files.writeString(dir.resolve("tokenizer.json"), """
                {"version": "1.0", "truncation": null, "padding": null,
                 "added_tokens": [
                   {"id": 0, "content": "<unk>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
                   {"id": 1, "content": "<|im_start|>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
                   {"id": 2, "content": "<|im_end|>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
                   {"id": 3, "content": "<|endoftext|>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}],
                 "normalizer": null, "pre_tokenizer": {"type": "Whitespace"}, "post_processor": null,
                 "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": false},
                 "model": {"type": "WordLevel", "unk_token": "<unk>", "vocab": {%s}}}
                """.formatted(vocab));
        Files.writeString(dir.resolve("tokenizer_config.json"), Json.MAPPER.writeValueAsString(Map.of(
                "eos_token", "<|im_end|>", "pad_token", "<|endoftext|>",
                "chat_template", "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
                        + "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")));
        String config = """
                {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 32, "num_hidden_layers": 2,
                 "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 64,
                 "vocab_size": %d, "max_position_embeddings": 512, "rms_norm_eps": 1e-06, "rope_theta": 1000000,
                 "rope_scaling": null, "tie_word_embeddings": true, "torch_dtype": "bfloat16", "hidden_act": "silu",
                 "attention_bias": false, "attention_dropout": 0.0, "bos_token_id": 3, "eos_token_id": 2,
                 "use_sliding_window": false, "sliding_window": null, "use_cache": true}
                """.formatted(VOCAB);
        HfModelConfig hf = HfModelConfig.parse(Json.parse(config), dir.getFileName().toString(), 0);
        try (NDManager manager = NDManager.newBaseManager()) {
            CausalLm model = CausalLm.create(hf.model(), manager, seed);
            HfSaver.save(model, hf, dir, dir, "bfloat16", HfSaver.DEFAULT_SHARD_BYTES);
        }
        return dir;
    }
}
