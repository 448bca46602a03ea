package dev.agentswarm.policy.model;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * The linear layers a LoRA adapter can wrap, under the module names PEFT uses for the Llama family
 * (Qwen2, Qwen3, Llama), so an adapter_config.json's {@code target_modules} reads as it is written.
 * The engine fuses q_proj, k_proj and v_proj into one projection: each of the three is a row range
 * of it ({@link #rowOffset}), so an adapter on q_proj adds only to the query rows.
 */
public enum LoraTarget {
    Q_PROJ("q_proj", "self_attn", "attn.qkv.weight"),
    K_PROJ("k_proj", "self_attn", "attn.qkv.weight"),
    V_PROJ("v_proj", "self_attn", "attn.qkv.weight"),
    O_PROJ("o_proj", "self_attn", "attn.out.weight"),
    GATE_PROJ("gate_proj", "mlp", "mlp.gate.weight"),
    UP_PROJ("up_proj", "mlp", "mlp.up.weight"),
    DOWN_PROJ("down_proj", "mlp", "mlp.down.weight");

    /** PEFT's shorthand for every linear layer but the output head. */
    public static final String ALL_LINEAR = "all-linear";

    private final String peftName;
    private final String hfParent;
    private final String weight;

    LoraTarget(String peftName, String hfParent, String weight) {
        this.peftName = peftName;
        this.hfParent = hfParent;
        this.weight = weight;
    }

    /** The module name PEFT and transformers give it: {@code q_proj}, ..., {@code down_proj}. */
    public String peftName() {
        return peftName;
    }

    /** The module's path inside a transformers decoder layer: {@code self_attn.q_proj}, {@code mlp.up_proj}. */
    public String hfModule() {
        return hfParent + "." + peftName;
    }

    /** The engine's weight this layer lives in, after {@code blocks.<i>.}. */
    public String weight() {
        return weight;
    }

    /** Input features of the layer. */
    public int in(ModelConfig c) {
        return switch (this) {
            case O_PROJ -> c.attentionWidth();
            case DOWN_PROJ -> c.ffn();
            default -> c.dModel();
        };
    }

    /** Output features of the layer: its rows in the engine's weight. */
    public int out(ModelConfig c) {
        return switch (this) {
            case Q_PROJ -> c.attentionWidth();
            case K_PROJ, V_PROJ -> c.kvHeads() * c.headSize();
            case O_PROJ, DOWN_PROJ -> c.dModel();
            case GATE_PROJ, UP_PROJ -> c.ffn();
        };
    }

    /** The first row of the engine's weight this layer fills: non-zero for k_proj and v_proj in the fused q|k|v. */
    public int rowOffset(ModelConfig c) {
        return switch (this) {
            case K_PROJ -> c.attentionWidth();
            case V_PROJ -> c.attentionWidth() + c.kvHeads() * c.headSize();
            default -> 0;
        };
    }

    public boolean inFusedQkv() {
        return this == Q_PROJ || this == K_PROJ || this == V_PROJ;
    }

    /** A PEFT module name or {@code all-linear} (case-insensitive); anything else is refused with the list. */
    public static Set<LoraTarget> parse(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        if (n.equals(ALL_LINEAR)) return EnumSet.allOf(LoraTarget.class);
        for (LoraTarget t : values()) if (t.peftName.equals(n)) return EnumSet.of(t);
        throw new IllegalArgumentException("unknown LoRA target '" + name + "'; known: " + ALL_LINEAR + ", q_proj, k_proj, v_proj,"
                + " o_proj, gate_proj, up_proj, down_proj");
    }

    /** The union of {@link #parse} over {@code names}. */
    public static Set<LoraTarget> parseAll(Iterable<String> names) {
        Set<LoraTarget> out = EnumSet.noneOf(LoraTarget.class);
        for (String n : names) out.addAll(parse(n));
        return out;
    }
}
