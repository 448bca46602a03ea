package dev.agentswarm.learner;

import dev.agentswarm.policy.model.ModelConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * What full fine-tuning of a model costs in memory, estimated before a run starts so that one that
 * cannot fit says so with the figure instead of failing hours in (or swapping the machine to a
 * halt). Per parameter: FP32 weights (4 B), their gradients (4 B) and AdamW's two moments (8 B),
 * plus 4 B more for a frozen reference policy (GRPO with β > 0, DPO). Activations are what the
 * backward pass keeps per token of a micro-batch: per layer the normed inputs, the q|k|v
 * projection, the attention scores over the sequence, the SwiGLU's three products and the
 * residuals; and the logits with their log-softmax and gradient. It is an estimate (libtorch's
 * allocator adds its own slack), so a run is refused only past the memory the machine has free.
 */
public record TrainingMemory(long weightBytes, long optimizerBytes, long referenceBytes, long activationBytes) {

    public long total() {
        return weightBytes + optimizerBytes + referenceBytes + activationBytes;
    }

    /**
     * @param rows sequences in a micro-batch
     * @param tokens tokens per sequence
     * @param reference whether a frozen copy of the starting model is kept
     * @param trainedParameters parameters that get gradients and optimizer state (all of them in full fine-tuning)
     */
    public static TrainingMemory estimate(ModelConfig c, int rows, int tokens, boolean reference, long trainedParameters) {
        long params = c.parameters();
        long weights = 4L * params;
        long optimizer = 12L * trainedParameters;
        long perTokenLayer = 4L * (6L * c.dModel() + 2L * c.projectionHeads() * c.headSize() + 3L * c.ffn()
                + 2L * c.heads() * (long) tokens);
        long perToken = c.layers() * perTokenLayer + 3L * 4L * c.vocab();
        return new TrainingMemory(weights, optimizer, reference ? weights : 0, (long) rows * tokens * perToken);
    }

    /** Refuses, with the figures, a run whose estimate exceeds the memory this machine has available. */
    public void requireFits(String what) {
        long available = availableBytes();
        if (available > 0 && total() > available) {
            throw new IllegalStateException(String.format(Locale.ROOT, "%s needs about %s (weights %s, gradients and AdamW %s,"
                            + " reference %s, activations %s) but this machine has %s available: train a LoRA adapter"
                            + " (agentswarm.learner.lora), use fewer micro-batch rows or a smaller model",
                    what, gib(total()), gib(weightBytes), gib(optimizerBytes), gib(referenceBytes), gib(activationBytes), gib(available)));
        }
    }

    public String describe() {
        return String.format(Locale.ROOT, "about %s (weights %s, gradients and AdamW %s, reference %s, activations %s)", gib(total()),
                gib(weightBytes), gib(optimizerBytes), gib(referenceBytes), gib(activationBytes));
    }

    /** MemAvailable of /proc/meminfo; 0 when unknown (not Linux), which skips the check. */
    static long availableBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemAvailable:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024L;
                }
            }
        } catch (IOException | NumberFormatException e) {
            // not Linux: no check
        }
        return 0;
    }

    static String gib(long bytes) {
        return String.format(Locale.ROOT, "%.2f GiB", bytes / (double) (1L << 30));
    }
}
