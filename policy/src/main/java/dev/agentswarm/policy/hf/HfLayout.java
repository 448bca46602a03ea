package dev.agentswarm.policy.hf;

import dev.agentswarm.policy.model.ModelConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * Where each tensor of a Hugging Face checkpoint lives in the engine's model. The names are those
 * of transformers' Qwen3, Qwen2 and Llama modules; the engine fuses q_proj, k_proj and v_proj (and
 * Qwen2's biases) into one projection, so those three land at row offsets of one parameter.
 */
public final class HfLayout {

    /**
     * One checkpoint tensor: its Hugging Face name and shape, the engine parameter it fills and the
     * first row it fills there (a matrix's rows are its output units; a vector's rows its elements).
     */
    public record Part(String hfName, long[] shape, String param, long rowOffset) {
        public long elements() {
            long n = 1;
            for (long d : shape) n *= d;
            return n;
        }
    }

    private HfLayout() {}

    /** Every tensor a checkpoint of this shape holds, in the order transformers' state dict lists them. */
    public static List<Part> parts(ModelConfig c) {
        List<Part> parts = new ArrayList<>();
        long d = c.dModel();
        long dh = c.headSize();
        long q = (long) c.heads() * dh;
        long kv = (long) c.kvHeads() * dh;
        parts.add(new Part("model.embed_tokens.weight", new long[] {c.vocab(), d}, "embed.weight", 0));
        for (int i = 0; i < c.layers(); i++) {
            String hf = "model.layers." + i + ".";
            String ours = "blocks." + i + ".";
            parts.add(new Part(hf + "input_layernorm.weight", new long[] {d}, ours + "norm1.weight", 0));
            parts.add(new Part(hf + "self_attn.q_proj.weight", new long[] {q, d}, ours + "attn.qkv.weight", 0));
            parts.add(new Part(hf + "self_attn.k_proj.weight", new long[] {kv, d}, ours + "attn.qkv.weight", q));
            parts.add(new Part(hf + "self_attn.v_proj.weight", new long[] {kv, d}, ours + "attn.qkv.weight", q + kv));
            if (c.qkvBias()) {
                parts.add(new Part(hf + "self_attn.q_proj.bias", new long[] {q}, ours + "attn.qkv.bias", 0));
                parts.add(new Part(hf + "self_attn.k_proj.bias", new long[] {kv}, ours + "attn.qkv.bias", q));
                parts.add(new Part(hf + "self_attn.v_proj.bias", new long[] {kv}, ours + "attn.qkv.bias", q + kv));
            }
            if (c.qkNorm()) {
                parts.add(new Part(hf + "self_attn.q_norm.weight", new long[] {dh}, ours + "attn.q_norm.weight", 0));
                parts.add(new Part(hf + "self_attn.k_norm.weight", new long[] {dh}, ours + "attn.k_norm.weight", 0));
            }
            parts.add(new Part(hf + "self_attn.o_proj.weight", new long[] {d, q}, ours + "attn.out.weight", 0));
            parts.add(new Part(hf + "post_attention_layernorm.weight", new long[] {d}, ours + "norm2.weight", 0));
            parts.add(new Part(hf + "mlp.gate_proj.weight", new long[] {c.ffn(), d}, ours + "mlp.gate.weight", 0));
            parts.add(new Part(hf + "mlp.up_proj.weight", new long[] {c.ffn(), d}, ours + "mlp.up.weight", 0));
            parts.add(new Part(hf + "mlp.down_proj.weight", new long[] {d, c.ffn()}, ours + "mlp.down.weight", 0));
        }
        parts.add(new Part("model.norm.weight", new long[] {d}, "norm.weight", 0));
        if (!c.tiedHead()) parts.add(new Part("lm_head.weight", new long[] {c.vocab(), d}, "head.weight", 0));
        return parts;
    }
}
