package dev.agentswarm.learner;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.policy.model.ModelConfig;
import dev.agentswarm.policy.model.RopeScaling;
import org.junit.jupiter.api.Test;

class TrainingMemoryTest {

    /** Qwen3-8B's shape: 36 layers, hidden 4096, 32/8 heads of 128, ffn 12288, vocab 151936, untied. */
    private static final ModelConfig QWEN3_8B = new ModelConfig("Qwen3-8B", 4096, 36, 32, 8, 128, 12288, 151936, 4096, 1e6,
            RopeScaling.NONE, 1e-6, true, false, false);

    @Test
    void fullFineTuningCostsSixteenBytesPerParameterBeforeActivations() {
        TrainingMemory m = TrainingMemory.estimate(QWEN3_8B, 1, 1, false, QWEN3_8B.parameters());
        assertEquals(8_190_735_360L, QWEN3_8B.parameters()); // Qwen3-8B's published count
        assertEquals(4 * QWEN3_8B.parameters(), m.weightBytes());
        assertEquals(12 * QWEN3_8B.parameters(), m.optimizerBytes());
        assertTrue(m.total() > 120L << 30, m.describe()); // over 120 GiB: no 24 GiB machine trains it in full
    }

    @Test
    void aRunThatCannotFitIsRefusedWithTheFigures() {
        TrainingMemory m = TrainingMemory.estimate(QWEN3_8B, 4, 1024, true, QWEN3_8B.parameters());
        long available = TrainingMemory.availableBytes();
        if (available == 0 || available > m.total()) return; // a machine this big trains it: nothing to refuse
        var e = assertThrows(IllegalStateException.class, () -> m.requireFits("full fine-tuning of Qwen3-8B"));
        assertTrue(e.getMessage().contains("GiB available") && e.getMessage().contains("LoRA"), e.getMessage());
        TrainingMemory tiny = TrainingMemory.estimate(ModelConfig.preset("tiny"), 4, 64, true, ModelConfig.preset("tiny").parameters());
        assertDoesNotThrow(() -> tiny.requireFits("tiny"));
    }

    @Test
    void activationsGrowWithTheTokensOfAMicroBatch() {
        ModelConfig small = ModelConfig.preset("small");
        long one = TrainingMemory.estimate(small, 1, 256, false, small.parameters()).activationBytes();
        long sixteen = TrainingMemory.estimate(small, 16, 256, false, small.parameters()).activationBytes();
        assertEquals(16 * one, sixteen);
    }
}
