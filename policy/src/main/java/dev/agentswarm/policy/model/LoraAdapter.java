package dev.agentswarm.policy.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Parameter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A LoRA adapter attached to a {@link CausalLm}: the wrapped linear layers compute
 * {@code base(x) + (alpha/r)·B·A·dropout(x)} while the base weights stay frozen (they require no
 * gradient, so backward allocates none for them) and the trainers' optimizers see only A and B
 * ({@link CausalLm#trainableParameters}). A is drawn as PEFT draws it (Kaiming-uniform with a = √5,
 * i.e. U(−1/√in, 1/√in)), B is zero, so a fresh adapter changes no output.
 *
 * <p>Parameters are named as PEFT saves them ({@code base_model.model.model.layers.<i>.self_attn.q_proj.lora_A.weight}),
 * so the adapter file is a plain dump of {@link #namedParameters}. {@link #disabled} switches the
 * update off for a scope: the base policy, DPO's and GRPO's reference, with no second model.
 *
 * <p>The engine's own passes (training, scoring, prefill, KV-cache decode) apply the update. The
 * hybrid decoder reads weights directly and does not: servers get merged weights
 * ({@link ModelWeights#exportMerged}) or {@link #mergeAndUnload} runs first.
 */
public final class LoraAdapter implements AutoCloseable {

    /** PEFT's prefix: PeftModel → LoraModel → the transformers CausalLM → its decoder. */
    public static final String PREFIX = "base_model.model.model.layers.";

    /** A scope with the update switched off; closing it restores the previous state. */
    public interface Off extends AutoCloseable {
        @Override
        void close();
    }

    private final CausalLm model;
    private final LoraSettings settings;
    private final NDManager manager;
    private final Map<String, Parameter> params;
    private final List<LoraLayer> layers = new ArrayList<>();
    private boolean enabled = true;
    private boolean attached = true;

    private LoraAdapter(CausalLm model, LoraSettings settings, NDManager parent, long seed) {
        this.model = model;
        this.settings = settings;
        this.manager = parent.newSubManager();
        ModelConfig c = model.config();
        SplittableRandom rng = new SplittableRandom(seed);
        Map<String, Parameter> named = new LinkedHashMap<>();
        for (int i = 0; i < c.layers(); i++) {
            Map<LoraTarget, Parameter[]> matrices = new EnumMap<>(LoraTarget.class);
            for (LoraTarget t : settings.targets()) {
                int in = t.in(c);
                int out = t.out(c);
                float bound = (float) (1 / Math.sqrt(in));
                float[] values = new float[settings.rank() * in];
                for (int k = 0; k < values.length; k++) values[k] = (float) ((2 * rng.nextDouble() - 1) * bound);
                Parameter a = parameter(name(i, t, "A"), manager.create(values, new Shape(settings.rank(), in)));
                Parameter b = parameter(name(i, t, "B"), manager.zeros(new Shape(out, settings.rank()), DataType.FLOAT32));
                named.put(a.getName(), a);
                named.put(b.getName(), b);
                matrices.put(t, new Parameter[] {a, b});
            }
            layers.add(new LoraLayer(this, c, matrices));
        }
        this.params = Collections.unmodifiableMap(named);
    }

    /**
     * Attaches a fresh adapter to {@code model} (which must have none) and freezes its base weights.
     * {@code seed} draws A.
     */
    public static LoraAdapter attach(CausalLm model, LoraSettings settings, NDManager parent, long seed) {
        if (model.adapter() != null) throw new IllegalStateException("the model already has a LoRA adapter");
        LoraAdapter adapter = new LoraAdapter(model, settings, parent, seed);
        for (Parameter p : model.namedParameters().values()) p.freeze(true);
        for (int i = 0; i < model.config().layers(); i++) model.layer(i).useAdapter(adapter.layers.get(i));
        model.setAdapter(adapter);
        return adapter;
    }

    /** The PEFT name of layer {@code i}'s matrix {@code ab} ("A" or "B") on {@code t}. */
    public static String name(int layer, LoraTarget t, String ab) {
        return PREFIX + layer + "." + t.hfModule() + ".lora_" + ab + ".weight";
    }

    public LoraSettings settings() {
        return settings;
    }

    public CausalLm model() {
        return model;
    }

    /** A and B of every wrapped layer under PEFT's names, layer by layer: what the optimizer trains. */
    public Map<String, Parameter> namedParameters() {
        return params;
    }

    /** Scalars in A and B together. */
    public long parameterCount() {
        long n = 0;
        for (Parameter p : params.values()) n += p.getArray().getShape().size();
        return n;
    }

    /** Adapter scalars for {@code settings} on a model shaped {@code c}, without building anything. */
    public static long parameterCount(ModelConfig c, LoraSettings settings) {
        long perLayer = 0;
        for (LoraTarget t : settings.targets()) perLayer += (long) settings.rank() * (t.in(c) + t.out(c));
        return perLayer * c.layers();
    }

    public boolean enabled() {
        return enabled && attached;
    }

    /** Switches the update off until the returned scope closes: the model computes its base policy. */
    public Off disabled() {
        boolean before = enabled;
        enabled = false;
        return () -> enabled = before;
    }

    /**
     * The change the adapter makes to the engine weight {@code name} ({@code blocks.<i>.attn.qkv.weight}, …),
     * as a new array in {@code m}, or null when it wraps nothing there. Call without gradient recording.
     */
    public NDArray weightDelta(String name, NDManager m) {
        if (!name.startsWith("blocks.")) return null;
        int dot = name.indexOf('.', 7);
        int layer = Integer.parseInt(name.substring(7, dot));
        return layers.get(layer).weightDelta(name.substring(dot + 1), m);
    }

    /**
     * PEFT's merge_and_unload: writes base + (alpha/r)·B·A into the model's weights in place, then
     * detaches the adapter. The model then computes what it computed with the adapter on, with no
     * adapter at all: what {@code HfSaver} saves and the hybrid decoder serves.
     */
    public void mergeAndUnload() {
        InferenceThreads.noGradHere();
        try (NDManager m = manager.newSubManager()) {
            for (Map.Entry<String, Parameter> e : model.namedParameters().entrySet()) {
                NDArray delta = weightDelta(e.getKey(), m);
                if (delta == null) continue;
                NDArray w = e.getValue().getArray();
                ModelWeights.overwrite(w, delta.addi(w).toByteBuffer());
            }
        }
        close();
    }

    /** Detaches the adapter: the model is its base again, trainable as a whole, and A and B are freed. */
    @Override
    public void close() {
        if (!attached) return;
        attached = false;
        for (int i = 0; i < model.config().layers(); i++) model.layer(i).useAdapter(null);
        model.setAdapter(null);
        for (Parameter p : model.namedParameters().values()) p.freeze(false);
        manager.close();
    }

    private Parameter parameter(String name, NDArray values) {
        Parameter p = Parameter.builder().setName(name).setType(Parameter.Type.WEIGHT).optArray(values).build();
        p.initialize(manager, DataType.FLOAT32); // already holds its values: this only turns gradients on
        return p;
    }
}
