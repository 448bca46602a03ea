package dev.agentswarm.learner.optim;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import java.util.Collection;

/**
 * Global-norm gradient clipping as torch.nn.utils.clip_grad_norm_ does it: the L2 norm over all
 * gradients together; when it exceeds {@code maxNorm} every gradient is scaled in place by
 * maxNorm / (norm + 1e-6). DJL's optClipGrad is an element-wise clamp, which changes the direction.
 */
public final class GradClipping {

    private GradClipping() {}

    /**
     * Clips {@code grads} in place and returns the norm before clipping. One host sync: the per-array
     * norms are stacked on the engine and only the total comes back.
     */
    public static double clipGlobalNorm(Collection<NDArray> grads, double maxNorm) {
        double norm = globalNorm(grads);
        if (maxNorm > 0 && norm > maxNorm) {
            float scale = (float) (maxNorm / (norm + 1e-6));
            for (NDArray g : grads) g.muli(scale);
        }
        return norm;
    }

    public static double globalNorm(Collection<NDArray> grads) {
        if (grads.isEmpty()) return 0;
        NDList norms = new NDList(grads.size());
        for (NDArray g : grads) norms.add(g.norm()); // results live in each gradient's (step) manager
        try (NDArray stacked = NDArrays.stack(norms); NDArray total = stacked.norm()) {
            return total.getFloat();
        } finally {
            norms.close();
        }
    }
}
