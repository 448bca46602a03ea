package dev.agentswarm.learner.optim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.util.List;
import org.junit.jupiter.api.Test;

class GradClippingTest {

    @Test
    void scalesAllGradientsTogetherToTheMaxNorm() {
        try (NDManager m = NDManager.newBaseManager()) {
            NDArray a = m.create(new float[] {3, 4});
            NDArray b = m.create(new float[] {12});
            double norm = GradClipping.clipGlobalNorm(List.of(a, b), 6.5); // sqrt(9 + 16 + 144) = 13
            assertEquals(13.0, norm, 1e-5);
            assertArrayEquals(new float[] {1.5f, 2f}, a.toFloatArray(), 1e-5f); // halved: direction kept
            assertArrayEquals(new float[] {6f}, b.toFloatArray(), 1e-5f);
            assertEquals(6.5, GradClipping.globalNorm(List.of(a, b)), 1e-5);
        }
    }

    @Test
    void leavesGradientsBelowTheMaxNormAlone() {
        try (NDManager m = NDManager.newBaseManager()) {
            NDArray a = m.create(new float[] {0.3f, -0.4f});
            assertEquals(0.5, GradClipping.clipGlobalNorm(List.of(a), 1.0), 1e-6);
            assertArrayEquals(new float[] {0.3f, -0.4f}, a.toFloatArray(), 0f);
            assertEquals(0.5, GradClipping.clipGlobalNorm(List.of(a), 0), 1e-6); // 0 = no clipping
            assertArrayEquals(new float[] {0.3f, -0.4f}, a.toFloatArray(), 0f);
        }
    }
}
