package dev.agentswarm.learner.optim;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.nn.Parameter;
import dev.agentswarm.policy.model.SafetensorsFile;
import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * AdamW (Loshchilov and Hutter) as torch.optim.AdamW computes it, written with NDArray ops so that
 * its state can be checkpointed (DJL's own optimizers keep theirs private):
 *
 * <pre>
 *   m ← β1·m + (1−β1)·g         v ← β2·v + (1−β2)·g²
 *   w ← w·(1 − lr·λ)            (decoupled decay; none on norm gains)
 *   w ← w − lr/(1−β1^t) · m / (sqrt(v/(1−β2^t)) + ε)
 * </pre>
 *
 * Every update is in place on the parameter arrays, so the model, a cached ParameterStore and
 * anyone holding the weights keep the same arrays. Temporaries are closed as soon as they are used:
 * an op's result belongs to its first input's manager, and m and v live in this optimizer's.
 */
public final class AdamW implements AutoCloseable {

    /** The knobs under their torch names. */
    public record Settings(double beta1, double beta2, double eps, double weightDecay) {
        public Settings {
            if (!(beta1 >= 0 && beta1 < 1)) throw new IllegalArgumentException("beta1 must be in [0, 1), got " + beta1);
            if (!(beta2 >= 0 && beta2 < 1)) throw new IllegalArgumentException("beta2 must be in [0, 1), got " + beta2);
            if (!(eps > 0)) throw new IllegalArgumentException("eps must be > 0, got " + eps);
            if (!(weightDecay >= 0)) throw new IllegalArgumentException("weight-decay must be ≥ 0, got " + weightDecay);
        }

        /** From an {@code adam { beta1, beta2, eps, weight-decay }} block; errors name {@code path}. */
        public static Settings fromConfig(com.typesafe.config.Config adam, String path) {
            try {
                return new Settings(adam.getDouble("beta1"), adam.getDouble("beta2"), adam.getDouble("eps"), adam.getDouble("weight-decay"));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(path + ": " + e.getMessage(), e);
            }
        }
    }

    static final String STEP_KEY = "agentswarm.optimizer_step";

    private final Settings settings;
    private final Map<String, Parameter> params;
    private final Set<String> decayed = new LinkedHashSet<>();
    private final NDManager state;
    private final Map<String, NDArray> m = new LinkedHashMap<>();
    private final Map<String, NDArray> v = new LinkedHashMap<>();
    private long step;
    private long skippedNonFinite;

    public AdamW(Map<String, Parameter> params, Settings settings, NDManager parent) {
        this.settings = settings;
        this.params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
        this.state = parent.newSubManager();
        for (Map.Entry<String, Parameter> e : params.entrySet()) {
            NDArray w = e.getValue().getArray();
            m.put(e.getKey(), state.zeros(w.getShape(), DataType.FLOAT32));
            v.put(e.getKey(), state.zeros(w.getShape(), DataType.FLOAT32));
            // Norm gains scale features; decaying them towards 0 fights the normalisation.
            if (e.getValue().getType() != Parameter.Type.GAMMA) decayed.add(e.getKey());
        }
    }

    /** Optimizer steps taken so far (t in the bias corrections). */
    public long stepCount() {
        return step;
    }

    public boolean decays(String name) {
        return decayed.contains(name);
    }

    /**
     * Clips the gradients to a global norm of {@code maxGradNorm} (0: no clipping), then updates,
     * unless their norm is not finite: a NaN or infinite gradient (an overflow in a backward pass)
     * would turn every weight it touches into NaN for good, so that update is skipped and the
     * weights and moments stay as they were. Returns the norm before clipping (NaN when skipped).
     */
    public double stepClipped(Map<String, NDArray> grads, double maxGradNorm, double lr) {
        double norm = GradClipping.clipGlobalNorm(grads.values(), maxGradNorm);
        if (Double.isFinite(norm)) {
            step(grads, lr);
        } else {
            skippedNonFinite++;
        }
        return norm;
    }

    /** Updates {@link #stepClipped} skipped because the gradients were not finite. */
    public long skippedNonFinite() {
        return skippedNonFinite;
    }

    /**
     * One update of every parameter that has a gradient in {@code grads} (by name) at learning rate
     * {@code lr}. The gradients are read, not changed.
     */
    public void step(Map<String, NDArray> grads, double lr) {
        step++;
        double b1 = settings.beta1(), b2 = settings.beta2();
        double biasCorrection1 = 1 - Math.pow(b1, step);
        double biasCorrection2 = 1 - Math.pow(b2, step);
        float decayFactor = (float) (1 - lr * settings.weightDecay());
        float invSqrtBc2 = (float) (1 / Math.sqrt(biasCorrection2));
        float stepSize = (float) (lr / biasCorrection1);
        for (Map.Entry<String, NDArray> e : grads.entrySet()) {
            String name = e.getKey();
            NDArray g = e.getValue();
            NDArray w = params.get(name).getArray();
            NDArray mi = m.get(name), vi = v.get(name);
            if (mi == null) throw new IllegalArgumentException("no optimizer state for " + name);
            try (NDArray scaled = g.mul((float) (1 - b1))) {
                mi.muli((float) b1).addi(scaled);
            }
            try (NDArray squared = g.square()) {
                vi.muli((float) b2).addi(squared.muli((float) (1 - b2)));
            }
            if (decayed.contains(name) && settings.weightDecay() > 0) w.muli(decayFactor);
            try (NDArray denom = vi.sqrt()) {
                denom.muli(invSqrtBc2).addi((float) settings.eps());
                try (NDArray update = mi.div(denom)) {
                    w.subi(update.muli(stepSize));
                }
            }
        }
    }

    /** m and v of every parameter as safetensors ({@code m.<name>}, {@code v.<name>}), with the step count. */
    public void save(Path file) throws IOException {
        Map<String, SafetensorsFile.Tensor> tensors = new LinkedHashMap<>();
        for (String name : params.keySet()) {
            tensors.put("m." + name, tensor(m.get(name)));
            tensors.put("v." + name, tensor(v.get(name)));
        }
        Map<String, String> meta = new LinkedHashMap<>();
        meta.put(STEP_KEY, Long.toString(step));
        meta.put("agentswarm.optimizer", "adamw " + settings);
        SafetensorsFile.write(file, tensors, meta);
    }

    /** Restores state saved by {@link #save}; every name and shape is checked before anything is copied. */
    public void load(Path file) throws IOException {
        SafetensorsFile.Contents contents = SafetensorsFile.read(file);
        for (String name : params.keySet()) {
            for (Map<String, NDArray> table : java.util.List.of(m, v)) {
                String key = (table == m ? "m." : "v.") + name;
                SafetensorsFile.Tensor t = contents.tensors().get(key);
                long[] expected = table.get(name).getShape().getShape();
                if (t == null || !Arrays.equals(t.shape(), expected)) {
                    throw new IllegalArgumentException(file + ": optimizer state " + key + (t == null ? " is missing"
                            : " is shaped " + Arrays.toString(t.shape()) + ", expected " + Arrays.toString(expected)));
                }
            }
        }
        String saved = contents.metadata().get(STEP_KEY);
        if (saved == null) throw new IllegalArgumentException(file + ": no " + STEP_KEY + " in the metadata");
        for (String name : params.keySet()) {
            m.get(name).set(contents.tensors().get("m." + name).data().duplicate());
            v.get(name).set(contents.tensors().get("v." + name).data().duplicate());
        }
        step = Long.parseLong(saved);
    }

    private static SafetensorsFile.Tensor tensor(NDArray a) {
        return new SafetensorsFile.Tensor(a.getShape().getShape(), a.toByteBuffer().order(ByteOrder.LITTLE_ENDIAN));
    }

    @Override
    public void close() {
        state.close();
    }
}
