package dev.agentswarm.policy.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Parameter;
import ai.djl.nn.core.Linear;
import ai.djl.nn.norm.Dropout;
import ai.djl.training.ParameterStore;
import java.util.EnumMap;
import java.util.Map;

/**
 * One decoder layer's share of a {@link LoraAdapter}: for each wrapped linear layer, A (r × in) and
 * B (out × r), and the low-rank update {@code (alpha/r)·B·A·dropout(x)} the layer's output gains.
 * The base product is left as it is (one fused q|k|v matmul); the q, k and v updates are laid
 * side by side in the fused output's row order, zeros where a part has no adapter.
 */
final class LoraLayer {

    private final LoraAdapter adapter;
    private final ModelConfig config;
    private final Map<LoraTarget, Parameter> a = new EnumMap<>(LoraTarget.class);
    private final Map<LoraTarget, Parameter> b = new EnumMap<>(LoraTarget.class);
    private final boolean anyQkv;

    LoraLayer(LoraAdapter adapter, ModelConfig config, Map<LoraTarget, Parameter[]> matrices) {
        this.adapter = adapter;
        this.config = config;
        for (Map.Entry<LoraTarget, Parameter[]> e : matrices.entrySet()) {
            a.put(e.getKey(), e.getValue()[0]);
            b.put(e.getKey(), e.getValue()[1]);
        }
        anyQkv = a.containsKey(LoraTarget.Q_PROJ) || a.containsKey(LoraTarget.K_PROJ) || a.containsKey(LoraTarget.V_PROJ);
    }

    /** {@code y} plus the update of {@code target} for input {@code x}, when the adapter is on and wraps it. */
    NDArray apply(ParameterStore ps, LoraTarget target, NDArray x, NDArray y, boolean training) {
        if (!adapter.enabled() || !a.containsKey(target)) return y;
        return y.add(delta(ps, target, x, training));
    }

    /** The fused projection {@code proj} (…, q|k|v rows) plus each wrapped part's update in its own rows. */
    NDArray applyQkv(ParameterStore ps, NDArray x, NDArray proj, boolean training) {
        if (!adapter.enabled() || !anyQkv) return proj;
        NDList parts = new NDList(3);
        Shape lead = proj.getShape().slice(0, proj.getShape().dimension() - 1);
        for (LoraTarget t : new LoraTarget[] {LoraTarget.Q_PROJ, LoraTarget.K_PROJ, LoraTarget.V_PROJ}) {
            parts.add(a.containsKey(t) ? delta(ps, t, x, training) : x.getManager().zeros(lead.add(t.out(config)), proj.getDataType()));
        }
        return proj.add(NDArrays.concat(parts, -1));
    }

    /** (alpha/r)·(dropout(x)·Aᵀ)·Bᵀ: the scale is applied to the r-wide middle, the cheapest place. */
    private NDArray delta(ParameterStore ps, LoraTarget target, NDArray x, boolean training) {
        double p = adapter.settings().dropout();
        NDArray in = training && p > 0 ? Dropout.dropout(x, (float) p, true).head() : x;
        NDArray low = Linear.linear(in, ps.getValue(a.get(target), x.getDevice(), training)).head()
                .mul((float) adapter.settings().scaling());
        return Linear.linear(low, ps.getValue(b.get(target), x.getDevice(), training)).head();
    }

    /**
     * The change (rows, in) the adapter makes to the engine weight {@code weight} (a name after
     * {@code blocks.<i>.}), or null when it wraps nothing there. For the fused q|k|v weight the
     * parts' changes are stacked in row order, zeros for a part without an adapter.
     */
    NDArray weightDelta(String weight, NDManager m) {
        NDList rows = new NDList();
        boolean any = false;
        for (LoraTarget t : LoraTarget.values()) {
            if (!t.weight().equals(weight)) continue;
            Parameter at = a.get(t);
            if (at == null) {
                rows.add(m.zeros(new Shape(t.out(config), t.in(config))));
                continue;
            }
            any = true;
            NDArray product = b.get(t).getArray().matMul(at.getArray());
            product.attach(m); // the product belongs to the adapter's manager until here
            rows.add(product.muli((float) adapter.settings().scaling()));
        }
        if (!any) {
            rows.close();
            return null;
        }
        return rows.size() == 1 ? rows.head() : NDArrays.concat(rows, 0);
    }
}
