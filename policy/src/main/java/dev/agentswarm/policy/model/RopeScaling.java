package dev.agentswarm.policy.model;

/**
 * How a checkpoint stretches its rotary frequencies past the context it was trained on, as Hugging
 * Face's {@code rope_scaling} names it. Supported: none ({@code default}), {@code linear} (every
 * frequency divided by {@code factor}) and {@code llama3} (Llama-3.1/3.2: long wavelengths divided by
 * {@code factor}, short ones kept, a smooth blend between). Others ({@code dynamic}, {@code yarn},
 * {@code longrope}) change attention with the sequence length or scale the logits, so a checkpoint
 * asking for them is refused rather than run with the wrong positions.
 */
public record RopeScaling(String type, double factor, double lowFreqFactor, double highFreqFactor,
                          int originalContext) {

    public static final RopeScaling NONE = new RopeScaling("default", 1, 0, 0, 0);

    public RopeScaling {
        switch (type) {
            case "default" -> { }
            case "linear" -> {
                if (!(factor >= 1)) throw new IllegalArgumentException("rope_scaling linear needs factor >= 1, got " + factor);
            }
            case "llama3" -> {
                if (!(factor >= 1) || !(lowFreqFactor > 0) || !(highFreqFactor > lowFreqFactor) || originalContext <= 0) {
                    throw new IllegalArgumentException("rope_scaling llama3 needs factor >= 1, 0 < low_freq_factor < high_freq_factor"
                            + " and original_max_position_embeddings > 0; got factor " + factor + ", low " + lowFreqFactor
                            + ", high " + highFreqFactor + ", original " + originalContext);
                }
            }
            default -> throw new IllegalArgumentException("rope_scaling type '" + type
                    + "' is not supported (default, linear and llama3 are)");
        }
    }

    public static RopeScaling linear(double factor) {
        return new RopeScaling("linear", factor, 0, 0, 0);
    }

    public static RopeScaling llama3(double factor, double low, double high, int originalContext) {
        return new RopeScaling("llama3", factor, low, high, originalContext);
    }

    /**
     * The inverse frequency of each rotary pair i in [0, headSize/2), in float32 as Hugging Face
     * computes it: {@code 1 / theta^(2i / headSize)}, then this scaling.
     */
    public float[] inverseFrequencies(int headSize, double theta) {
        int half = headSize / 2;
        float[] inv = new float[half];
        for (int i = 0; i < half; i++) {
            float exponent = (float) (2 * i) / headSize;
            inv[i] = 1f / (float) Math.pow(theta, exponent);
        }
        switch (type) {
            case "linear" -> {
                for (int i = 0; i < half; i++) inv[i] = (float) (inv[i] / factor);
            }
            case "llama3" -> {
                double lowWavelength = originalContext / lowFreqFactor;
                double highWavelength = originalContext / highFreqFactor;
                for (int i = 0; i < half; i++) {
                    double wavelength = 2 * Math.PI / inv[i];
                    if (wavelength > lowWavelength) {
                        inv[i] = (float) (inv[i] / factor);
                    } else if (wavelength >= highWavelength) {
                        double smooth = (originalContext / wavelength - lowFreqFactor) / (highFreqFactor - lowFreqFactor);
                        inv[i] = (float) ((1 - smooth) * inv[i] / factor + smooth * inv[i]);
                    }
                }
            }
            default -> { }
        }
        return inv;
    }
}
