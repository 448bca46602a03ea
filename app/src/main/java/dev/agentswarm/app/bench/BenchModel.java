package dev.agentswarm.app.bench;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.ParameterStore;
import dev.agentswarm.policy.hf.HfCheckpoint;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.InferenceThreads;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * A Hugging Face model folder as the benchmarks load it ({@code --model DIR}), and the log-prob
 * checksum that the plain-PyTorch reference in {@code bench/pytorch-ref-qwen3} prints for the same
 * folder: the sum of log p(ids[t+1] | ids[≤t]) over a fixed sequence of 32 ids, ids[i] = (1 + 7919 i)
 * mod vocab. Equal checksums (to float32 rounding) say both sides compute the same function on the
 * same weights, so their timings compare.
 */
public final class BenchModel {

    public static final int CHECKSUM_TOKENS = 32;

    private BenchModel() {}

    /** What loading took: the checkpoint and its model, wall time, and resident memory after it. */
    public record Opened(HfCheckpoint.Loaded loaded, double loadMs, long rssAfterLoad) {
        public CausalLm model() {
            return loaded.model();
        }
    }

    /**
     * Loads {@code dir} into a new model under {@code manager}; {@code context} sizes the rotary
     * tables and KV caches (the longest sequence the bench runs, at least the checksum's 32 tokens).
     */
    public static Opened load(Path dir, NDManager manager, int context) {
        if (!Files.isDirectory(dir)) throw new IllegalArgumentException("--model: no folder at " + dir);
        long t0 = System.nanoTime();
        try {
            HfCheckpoint.Loaded loaded = HfCheckpoint.load(dir, manager, Math.max(context, CHECKSUM_TOKENS));
            return new Opened(loaded, (System.nanoTime() - t0) / 1e6, rssBytes());
        } catch (IOException e) {
            throw new UncheckedIOException("--model: cannot read " + dir + ": " + e.getMessage(), e);
        }
    }

    /** The keys every bench reports for a loaded folder. */
    static void describe(Map<String, Object> f, Path dir, Opened opened, NDManager manager) {
        f.put("model", dir.toString());
        f.put("family", opened.loaded().config().architecture());
        f.put("load_ms", Math.round(opened.loadMs() * 10) / 10.0);
        f.put("rss_bytes_after_load", opened.rssAfterLoad());
        f.put("logprob_checksum", logprobChecksum(opened.model(), manager));
    }

    /** The fixed sequence both sides score. */
    public static long[] checksumIds(int vocab) {
        long[] ids = new long[CHECKSUM_TOKENS];
        for (int i = 0; i < ids.length; i++) ids[i] = (1L + 7919L * i) % vocab;
        return ids;
    }

    /** Sum over t of log p(ids[t+1] | ids[≤t]) for {@link #checksumIds}, summed in double. */
    public static double logprobChecksum(CausalLm model, NDManager manager) {
        InferenceThreads.noGradHere();
        try (NDManager m = manager.newSubManager()) {
            NDArray ids = m.create(checksumIds(model.config().vocab()), new Shape(1, CHECKSUM_TOKENS));
            float[] logp = model.tokenLogProbs(new ParameterStore(m, false), ids, false).toFloatArray();
            double sum = 0;
            for (float v : logp) sum += v;
            return sum;
        }
    }

    /** Resident memory of the process (heap, native tensors, code), from /proc; -1 where there is none. */
    static long rssBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
            }
        } catch (Exception e) {
            return -1;
        }
        return -1;
    }
}
