package dev.agentswarm.app.bench;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.ParameterStore;
import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.learner.optim.AdamW;
import dev.agentswarm.learner.rl.GrpoStep;
import dev.agentswarm.learner.rl.PolicyLoss;
import dev.agentswarm.learner.rl.RlMicroBatch;
import dev.agentswarm.learner.rl.RlSample;
import dev.agentswarm.policy.hf.HfCheckpoint;
import dev.agentswarm.policy.hf.HfModelConfig;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.InferenceThreads;
import dev.agentswarm.policy.model.ModelConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The learner's math on a GPU (or the host) with no actor system, for machines that have a GPU but
 * no Maven: loads a Hugging Face folder ({@link HfCheckpoint}, weights widened to F32: DJL 0.35.1's
 * PyTorch bridge aborts on BF16 arrays), writes the per-token log-probs of given sequences (the
 * parity check against an independent reference), then times GRPO steps on the reference's batch
 * (B sequences of T tokens, 4 prompts × 4 generations, dapo loss with clip-higher 0.2 / 0.28,
 * backward, global-norm clip 1.0, AdamW over every parameter) and prints one JSON object.
 *
 * <pre>
 *   java -cp 'lib/*' dev.agentswarm.app.bench.GpuCheck --model DIR [--device gpu|cpu]
 *        [--score seqs.jsonl --scores-out ours.jsonl]       lines {"ids":[...]} → {"logprobs":[null, ...]}
 *        [--steps 10 --warmup 3 --batch 16 --seq 256 --generations 4 --micro-rows 16 --lr 1e-5]
 *        [--json result.json]
 * </pre>
 *
 * Step times end with a host read of a small parameter, so the device's queue has drained; tokens/s
 * count B × T (padding included), as the PyTorch reference counts them. GPU memory is what
 * nvidia-smi reports for the device after the steps (libtorch's caching allocator keeps its peak),
 * when nvidia-smi is there.
 */
public final class GpuCheck {

    private GpuCheck() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> a = parse(args);
        Path dir = Path.of(required(a, "model"));
        String deviceName = a.getOrDefault("device", "gpu");
        int steps = Integer.parseInt(a.getOrDefault("steps", "10"));
        int warmup = Integer.parseInt(a.getOrDefault("warmup", "3"));
        int batch = Integer.parseInt(a.getOrDefault("batch", "16"));
        int seq = Integer.parseInt(a.getOrDefault("seq", "256"));
        int generations = Integer.parseInt(a.getOrDefault("generations", "4"));
        int microRows = Integer.parseInt(a.getOrDefault("micro-rows", Integer.toString(batch)));
        double lr = Double.parseDouble(a.getOrDefault("lr", "1e-5"));
        List<long[]> sequences = a.containsKey("score") ? readSequences(Path.of(a.get("score"))) : List.of();

        Map<String, Object> f = new LinkedHashMap<>();
        long t0 = System.nanoTime();
        Engine engine = Engine.getEngine("PyTorch");
        InferenceThreads.noGradHere();
        f.put("engine", engine.getEngineName() + " " + engine.getVersion());
        f.put("engine_load_s", seconds(t0));
        Device device = switch (deviceName) {
            case "gpu" -> Device.gpu();
            case "cpu" -> Device.cpu();
            default -> throw new IllegalArgumentException("--device takes gpu or cpu, got " + deviceName);
        };
        f.put("device", device.toString());
        f.put("tf32_override_env", System.getenv().getOrDefault("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", ""));
        int longest = sequences.stream().mapToInt(s -> s.length).max().orElse(0);

        try (NDManager root = NDManager.newBaseManager(device)) {
            long load = System.nanoTime();
            HfCheckpoint.Loaded loaded = HfCheckpoint.load(dir, root, Math.max(seq, longest));
            CausalLm model = loaded.model();
            ModelConfig config = model.config();
            syncOn(model);
            f.put("load_s", seconds(load));
            f.put("model", describe(loaded.config()));
            f.put("params", config.parameters());
            f.put("gpu_mib_after_load", gpuMemoryMiB());
            System.err.printf("loaded %s (%,d parameters) on %s in %.1f s%n", dir, config.parameters(), device, seconds(load));

            if (!sequences.isEmpty()) {
                long s0 = System.nanoTime();
                List<String> lines = score(model, root, sequences);
                f.put("scored_sequences", sequences.size());
                f.put("score_s", seconds(s0));
                if (a.containsKey("scores-out")) {
                    Files.write(Path.of(a.get("scores-out")), lines, StandardCharsets.UTF_8);
                } else {
                    lines.forEach(System.out::println);
                }
            }
            try {
                if (steps > 0) grpo(f, model, root, batch, seq, generations, microRows, lr, steps, warmup);
                int n = device.isGpu() ? 4096 : 1024;
                f.put("matmul_n", n);
                f.put("matmul_fp32_tflops", round(matmulTflops(root, n)));
            } catch (RuntimeException e) { // out of memory, typically: what was measured before still counts
                f.put("error", e.toString().lines().findFirst().orElse(""));
                e.printStackTrace();
            }
        }
        String json = Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(f);
        if (a.containsKey("json")) Files.writeString(Path.of(a.get("json")), json + "\n");
        System.out.println(json);
        if (f.containsKey("error")) System.exit(1);
    }

    /** Each sequence alone, as (1, T): {"logprobs":[null, log p(ids[1] | ids[:1]), ...]}. */
    static List<String> score(CausalLm model, NDManager root, List<long[]> sequences) throws IOException {
        ParameterStore ps = new ParameterStore(root, false);
        List<String> lines = new ArrayList<>();
        for (long[] ids : sequences) {
            try (NDManager step = root.newSubManager()) {
                NDArray x = step.create(ids, new Shape(1, ids.length));
                float[] lp = model.tokenLogProbs(ps, x, false).toFloatArray();
                List<Object> out = new ArrayList<>(lp.length + 1);
                out.add(null);
                for (float v : lp) out.add((double) v);
                lines.add(Json.MAPPER.writeValueAsString(Map.of("logprobs", out)));
            }
        }
        return lines;
    }

    private static void grpo(Map<String, Object> f, CausalLm model, NDManager root, int batch, int seq, int generations,
                             int microRows, double lr, int steps, int warmup) {
        ModelConfig config = model.config();
        List<RlSample> samples = LearnerBenchmark.referenceBatch(batch, generations, seq, config.vocab());
        List<RlMicroBatch> batches = RlMicroBatch.split(samples, microRows, 0);
        int completion = seq - (seq - (int) (0.6 * seq));
        f.put("batch", batch);
        f.put("seq", seq);
        f.put("micro_rows", microRows);
        f.put("completion_tokens", samples.stream().mapToInt(RlSample::trainedTokens).sum());
        try (AdamW optimizer = new AdamW(model.namedParameters(), new AdamW.Settings(0.9, 0.999, 1e-8, 0.0), root)) {
            GrpoStep step = new GrpoStep(model, null, optimizer, root,
                    new PolicyLoss(new PolicyLoss.Settings(PolicyLoss.Type.DAPO, 0.2, 0.28, 0, 0)));
            List<Map<String, Object>> first = new ArrayList<>();
            for (int i = 0; i < warmup; i++) {
                GrpoStep.Outcome o = step.run(batches, lr, 1.0, 1, completion);
                syncOn(model);
                if (first.size() < 2) first.add(Map.of("loss", o.loss(), "grad_norm", o.gradNorm(), "entropy", o.entropy()));
            }
            double[] ms = new double[steps];
            GrpoStep.Outcome last = null;
            for (int i = 0; i < steps; i++) {
                long t = System.nanoTime();
                last = step.run(batches, lr, 1.0, 1, completion);
                syncOn(model);
                ms[i] = (System.nanoTime() - t) / 1e6;
            }
            f.put("gpu_mib_after_steps", gpuMemoryMiB());
            double[] sorted = ms.clone();
            Arrays.sort(sorted);
            double median = SftBenchmark.median(sorted);
            long tokens = (long) batch * seq;
            f.put("step_ms", Arrays.stream(ms).map(GpuCheck::round).boxed().toList());
            f.put("step_ms_median", round(median));
            f.put("step_ms_p10", round(percentile(sorted, 0.10)));
            f.put("step_ms_p90", round(percentile(sorted, 0.90)));
            f.put("step_ms_min", round(sorted[0]));
            f.put("step_ms_max", round(sorted[sorted.length - 1]));
            f.put("tokens_per_s", round(tokens / (median / 1e3)));
            f.put("model_tflops", round(config.trainingFlopsPerToken(seq) * tokens / (median / 1e3) / 1e12));
            f.put("first_steps", first);
            f.put("last_step", Map.of("loss", last.loss(), "grad_norm", last.gradNorm(), "entropy", last.entropy()));

            // The old-log-prob forward a learner runs when num-iterations > 1: no graph.
            ParameterStore ps = new ParameterStore(root, false);
            double[] fwd = new double[Math.max(3, Math.min(steps, 10))];
            for (int i = -1; i < fwd.length; i++) {
                long t = System.nanoTime();
                for (RlMicroBatch b : batches) {
                    try (NDManager s = root.newSubManager()) { // one micro-batch's activations at a time
                        model.tokenLogProbs(ps, b.tokens().idsArray(s), false).sum().getFloat();
                    }
                }
                if (i >= 0) fwd[i] = (System.nanoTime() - t) / 1e6;
            }
            Arrays.sort(fwd);
            f.put("scoring_forward_ms_median", round(SftBenchmark.median(fwd)));
        }
    }

    /** A host read of one small parameter: returns once the device has run everything queued before it. */
    private static void syncOn(CausalLm model) {
        model.namedParameters().get("norm.weight").getArray().toFloatArray();
    }

    /** C = A·B at n × n in fp32, many products queued then one host read; TFLOP/s. */
    static double matmulTflops(NDManager root, int n) {
        try (NDManager m = root.newSubManager()) {
            NDArray x = m.randomNormal(new Shape(n, n));
            NDArray y = m.randomNormal(new Shape(n, n));
            for (int i = 0; i < 3; i++) x.matMul(y).close();
            x.get(0).toFloatArray();
            int runs = m.getDevice().isGpu() ? 50 : 10;
            long t = System.nanoTime();
            NDArray c = null;
            for (int i = 0; i < runs; i++) {
                if (c != null) c.close();
                c = x.matMul(y);
            }
            c.get(0).toFloatArray();
            double s = (System.nanoTime() - t) / 1e9;
            return 2.0 * n * n * n * runs / s / 1e12;
        }
    }

    /** The device's used memory in MiB as nvidia-smi reports it, or null without nvidia-smi. */
    static Long gpuMemoryMiB() {
        try {
            Process p = new ProcessBuilder("nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits")
                    .redirectErrorStream(true).start();
            String out;
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                out = r.readLine();
            }
            return p.waitFor() == 0 && out != null ? Long.parseLong(out.trim()) : null;
        } catch (IOException | NumberFormatException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private static Map<String, Object> describe(HfModelConfig hf) {
        ModelConfig c = hf.model();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("architecture", hf.architecture());
        m.put("stored_dtype", hf.dtype());
        m.put("hidden", c.dModel());
        m.put("layers", c.layers());
        m.put("heads", c.heads());
        m.put("kv_heads", c.kvHeads());
        m.put("head_dim", c.headSize());
        m.put("ffn", c.ffn());
        m.put("vocab", c.vocab());
        m.put("tied", c.tiedHead());
        return m;
    }

    static List<long[]> readSequences(Path file) throws IOException {
        List<long[]> out = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.isBlank()) continue;
            JsonNode ids = Json.MAPPER.readTree(line).path("ids");
            if (!ids.isArray() || ids.size() < 2) throw new IllegalArgumentException(file + ": a line needs \"ids\" with 2 or more tokens");
            long[] seq = new long[ids.size()];
            for (int i = 0; i < seq.length; i++) seq[i] = ids.get(i).asLong();
            out.add(seq);
        }
        return out;
    }

    private static Map<String, String> parse(String[] args) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --name value pairs, got " + String.join(" ", args));
            }
            m.put(args[i].substring(2), args[++i]);
        }
        return m;
    }

    private static String required(Map<String, String> a, String key) {
        String v = a.get(key);
        if (v == null) throw new IllegalArgumentException("--" + key + " is required");
        return v;
    }

    private static double percentile(double[] sorted, double q) {
        return sorted[(int) Math.min(sorted.length - 1, Math.round(q * (sorted.length - 1)))];
    }

    private static double seconds(long since) {
        return round((System.nanoTime() - since) / 1e9);
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
