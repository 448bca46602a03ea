package dev.agentswarm.policy.model;

import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The independent float64 reference for Hugging Face checkpoints (Qwen3, Qwen2/Qwen2.5, Llama 3.x): runs
 * {@code src/test/python/hf_checkpoint.py} (numpy only) to write tiny random checkpoints in Hugging Face's exact layout
 * and to score or greedily continue token sequences with them. Tests run with the module directory as working directory,
 * as Maven runs them.
 *
 * <p>The Python is {@code /usr/bin/python3}, else {@code python3} on PATH, whichever first imports numpy. Without one the
 * calling test is skipped, or fails where {@code AGENTSWARM_REQUIRE_PYTHON_NUMPY=1} (bin/test sets it).
 */
public final class HfReference {

    /** The script, relative to the module directory. */
    public static final Path SCRIPT = Path.of("src", "test", "python", "hf_checkpoint.py");
    /** How long one run of the script may take. */
    public static final Duration TIMEOUT = Duration.ofMinutes(5);

    private static volatile String python;

    private HfReference() {}

    /**
     * What {@code make} writes. {@code headDim}, {@code ropeTheta}, {@code maxPositions} and {@code rmsEps} of 0 take the
     * family's default (head_dim 24, or hidden / heads for qwen2 which has no head_dim; theta 1e6 for Qwen, 5e5 for
     * Llama; max positions 40960 / 32768 / 131072; eps 1e-6 for Qwen, 1e-5 for Llama). {@code ropeScaling} is "none" or
     * "llama3" (Llama 3.1's factor 8, low 1, high 4, original 8192). {@code configStyle} "v4" writes rope_theta,
     * rope_scaling and torch_dtype as transformers 4.x does; "v5" writes rope_parameters and dtype.
     */
    public record Spec(String family, int hidden, int layers, int heads, int kvHeads, int headDim, int ffn, int vocab,
            boolean tie, String dtype, int shards, long seed, String ropeScaling, double ropeTheta, int maxPositions,
            double rmsEps, boolean attentionBias, boolean mlpBias, boolean generationConfig, String configStyle) {

        public Spec {
            if (!List.of("qwen3", "qwen2", "llama").contains(family)) throw new IllegalArgumentException("family " + family);
            if (!List.of("bf16", "fp16", "fp32").contains(dtype)) throw new IllegalArgumentException("dtype " + dtype);
            if (!List.of("none", "llama3").contains(ropeScaling)) throw new IllegalArgumentException("ropeScaling " + ropeScaling);
            if (!List.of("v4", "v5").contains(configStyle)) throw new IllegalArgumentException("configStyle " + configStyle);
        }

        /** hidden 64, 2 layers, 4 heads over 2 kv heads, ffn 96, vocab 300, untied, bf16, one file, seed 0. */
        public static Spec of(String family) {
            return new Spec(family, 64, 2, 4, 2, 0, 96, 300, false, "bf16", 1, 0, "none", 0, 0, 0, false, false, false, "v4");
        }

        public static Spec qwen3() {
            return of("qwen3");
        }

        public static Spec qwen2() {
            return of("qwen2");
        }

        public static Spec llama() {
            return of("llama");
        }

        public Spec withFamily(String v) {
            return new Spec(v, hidden, layers, heads, kvHeads, headDim, ffn, vocab, tie, dtype, shards, seed, ropeScaling, ropeTheta, maxPositions, rmsEps, attentionBias, mlpBias, generationConfig, configStyle);
        }

        public Spec withHidden(int v) {
            return new Spec(family, v, layers, heads, kvHeads, headDim, ffn, vocab, tie, dtype, shards, seed, ropeScaling, ropeTheta, maxPositions, rmsEps, attentionBias, mlpBias, generationConfig, configStyle);
        }

        public Spec withLayers(int v) {
            return new Spec(family, hidden, v, heads, kvHeads, headDim, ffn, vocab, tie, dtype, shards, seed, ropeScaling, ropeTheta, maxPositions, rmsEps, attentionBias, mlpBias, generationConfig, configStyle);
        }

        public Spec withHeads(int heads, int kvHeads) {
            return new Spec(family, hidden, layers, heads, kvHeads, headDim, ffn, vocab, tie, dtype, shards, seed, ropeScaling, ropeTheta, maxPositions, rmsEps, attentionBias, mlpBias, generationConfig, configStyle);
        }

        public Spec withHeadDim(int v) {
            return new Spec(family, hidden, layers, heads, kvHeads, v, ffn, vocab, tie, dtype, shards, seed, ropeScaling, ropeTheta, maxPositions, rmsEps, attentionBias, mlpBias, generationConfig, configStyle);
        }

        public Spec withFfn(int v) {
            return new Spec(family, hidden, layers, heads, kvHeads, headDim, v, vocab, tie, dtype, shards, seed, ropeScaling, ropeTheta, maxPositions, rmsEps, attentionBias, mlpBias, generationConfig, configStyle);
        }

        public Spec withVocab(int v) {
            return new Spec(family, hidden, layers, heads, kvHeads, headDim, ffn, v, tie, dtype, shards, seed, ropeScaling, ropeTheta, maxPositions, rmsEps, attentionBias, mlpBias, generationConfig, configStyle);
        }

        public Spec withTie(boolean v) {
            return new Spec(family, hidden, layers, heads, kvHeads, headDim, ffn, vocab, v, dtype, shards, seed, ropeScaling, ropeTheta, maxPositions, rmsEps, attentionBias, mlpBias, generationConfig, configStyle);
        }

        public Spec withDtype(String v) {
            return new Spec(family, hidden, layers, heads, kvHeads, headDim, ffn, vocab, tie, v, shards, seed, ropeScaling, ropeTheta, maxPositions, rmsEps, attentionBias, mlpBias, generationConfig, configStyle);
        }

        public Spec withShards(int v) {
            return new Spec(family, hidden, layers, heads, kvHeads, headDim, ffn, vocab, tie, dtype, v, seed, ropeScaling, ropeTheta, maxPositions, rmsEps, attentionBias, mlpBias, generationConfig, configStyle);
        }

        public Spec withSeed(long v) {
            return new Spec(family, hidden, layers, heads, kvHeads, headDim, ffn, vocab, tie, dtype, shards, v, ropeScaling, ropeTheta, maxPositions, rmsEps, attentionBias, mlpBias, generationConfig, configStyle);
        }

        public Spec withRopeScaling(String v) {
            return new Spec(family, hidden, layers, heads, kvHeads, headDim, ffn, vocab, tie, dtype, shards, seed, v, ropeTheta, maxPositions, rmsEps, attentionBias, mlpBias, generationConfig, configStyle);
        }

        public Spec withRopeTheta(double v) {
            return new Spec(family, hidden, layers, heads, kvHeads, headDim, ffn, vocab, tie, dtype, shards, seed, ropeScaling, v, maxPositions, rmsEps, attentionBias, mlpBias, generationConfig, configStyle);
        }

        public Spec withMaxPositions(int v) {
            return new Spec(family, hidden, layers, heads, kvHeads, headDim, ffn, vocab, tie, dtype, shards, seed, ropeScaling, ropeTheta, v, rmsEps, attentionBias, mlpBias, generationConfig, configStyle);
        }

        public Spec withRmsEps(double v) {
            return new Spec(family, hidden, layers, heads, kvHeads, headDim, ffn, vocab, tie, dtype, shards, seed, ropeScaling, ropeTheta, maxPositions, v, attentionBias, mlpBias, generationConfig, configStyle);
        }

        /** Llama and Qwen3 only: biases on q, k, v and o (Qwen2's q/k/v biases are always there). */
        public Spec withAttentionBias(boolean v) {
            return new Spec(family, hidden, layers, heads, kvHeads, headDim, ffn, vocab, tie, dtype, shards, seed, ropeScaling, ropeTheta, maxPositions, rmsEps, v, mlpBias, generationConfig, configStyle);
        }

        /** Llama only: biases on gate, up and down. */
        public Spec withMlpBias(boolean v) {
            return new Spec(family, hidden, layers, heads, kvHeads, headDim, ffn, vocab, tie, dtype, shards, seed, ropeScaling, ropeTheta, maxPositions, rmsEps, attentionBias, v, generationConfig, configStyle);
        }

        public Spec withGenerationConfig(boolean v) {
            return new Spec(family, hidden, layers, heads, kvHeads, headDim, ffn, vocab, tie, dtype, shards, seed, ropeScaling, ropeTheta, maxPositions, rmsEps, attentionBias, mlpBias, v, configStyle);
        }

        public Spec withConfigStyle(String v) {
            return new Spec(family, hidden, layers, heads, kvHeads, headDim, ffn, vocab, tie, dtype, shards, seed, ropeScaling, ropeTheta, maxPositions, rmsEps, attentionBias, mlpBias, generationConfig, v);
        }

        List<String> args(Path dir) {
            List<String> a = new ArrayList<>(List.of("make", "--dir", dir.toAbsolutePath().toString(), "--family", family,
                    "--hidden", "" + hidden, "--layers", "" + layers, "--heads", "" + heads, "--kv-heads", "" + kvHeads,
                    "--ffn", "" + ffn, "--vocab", "" + vocab, tie ? "--tie" : "--no-tie", "--dtype", dtype,
                    "--shards", "" + shards, "--seed", "" + seed, "--rope-scaling", ropeScaling, "--config-style", configStyle));
            if (headDim > 0) a.addAll(List.of("--head-dim", "" + headDim));
            if (ropeTheta > 0) a.addAll(List.of("--rope-theta", String.format(Locale.ROOT, "%s", ropeTheta)));
            if (maxPositions > 0) a.addAll(List.of("--max-pos", "" + maxPositions));
            if (rmsEps > 0) a.addAll(List.of("--rms-eps", String.format(Locale.ROOT, "%s", rmsEps)));
            if (attentionBias) a.add("--attention-bias");
            if (mlpBias) a.add("--mlp-bias");
            if (generationConfig) a.add("--generation-config");
            return a;
        }
    }

    /** A greedy continuation: the new tokens only (not the prompt), and the log-probability of each when chosen. */
    public record Generated(int[] ids, double[] logprobs) {}

    /** Writes a tiny random checkpoint into {@code dir} (config.json, weights, index when sharded); returns {@code dir}. */
    public static Path make(Path dir, Spec spec) {
        run(spec.args(dir), "");
        return dir;
    }

    /**
     * For each sequence, log p(ids[t] | ids[&lt;t]) at every t from a full float64 causal pass; element 0, which has no
     * prediction, is NaN. One process for all the sequences.
     */
    public static List<double[]> logprobs(Path dir, List<int[]> sequences) {
        StringBuilder in = new StringBuilder();
        for (int[] ids : sequences) in.append("{\"ids\":").append(Arrays.toString(ids)).append("}\n");
        List<JsonNode> out = lines(run(List.of("logprobs", "--dir", dir.toAbsolutePath().toString()), in.toString()));
        if (out.size() != sequences.size())
            throw new IllegalStateException(sequences.size() + " sequences but " + out.size() + " answers");
        List<double[]> result = new ArrayList<>();
        for (JsonNode line : out) result.add(doubles(line.get("logprobs")));
        return result;
    }

    /** The first {@code n} greedy tokens after {@code prompt} (argmax, ties to the lowest id), recomputed in full each step. */
    public static Generated generate(Path dir, int[] prompt, int n) {
        String in = "{\"ids\":" + Arrays.toString(prompt) + ",\"new\":" + n + "}\n";
        JsonNode line = lines(run(List.of("generate", "--dir", dir.toAbsolutePath().toString()), in)).get(0);
        JsonNode ids = line.get("ids");
        int[] tokens = new int[ids.size()];
        for (int i = 0; i < tokens.length; i++) tokens[i] = ids.get(i).asInt();
        return new Generated(tokens, doubles(line.get("logprobs")));
    }

    /** Runs the script's own checks (format, bf16 rounding, causality, agreement with a loop-by-loop pass); returns its report. */
    public static String selftest() {
        return run(List.of("selftest"), "");
    }

    /**
     * The Python that has numpy. Skips the calling test when there is none, or fails it when
     * {@code AGENTSWARM_REQUIRE_PYTHON_NUMPY=1}.
     */
    public static String python() {
        String found = python;
        if (found != null) return found;
        List<String> candidates = new ArrayList<>();
        if (Files.isExecutable(Path.of("/usr/bin/python3"))) candidates.add("/usr/bin/python3");
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, "python3"))) candidates.add(Path.of(d, "python3").toString());
        for (String candidate : candidates) {
            if (importsNumpy(candidate)) return python = candidate;
        }
        String why = "no Python 3 with numpy (tried " + candidates + "): apt-get install python3-numpy";
        if ("1".equals(System.getenv("AGENTSWARM_REQUIRE_PYTHON_NUMPY"))) fail("AGENTSWARM_REQUIRE_PYTHON_NUMPY=1 but " + why);
        Assumptions.abort(why + "; skipping the Hugging Face reference");
        throw new AssertionError("unreachable");
    }

    private static boolean importsNumpy(String candidate) {
        Process p = null;
        try {
            p = new ProcessBuilder(candidate, "-c", "import numpy").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            if (p != null) p.destroyForcibly();
        }
    }

    /** Runs the script with these arguments and this standard input; returns its standard output. */
    private static String run(List<String> args, String stdin) {
        Path script = SCRIPT.toAbsolutePath();
        if (!Files.isRegularFile(script))
            throw new IllegalStateException(script + " is missing: tests must run with the policy module as working directory");
        List<String> command = new ArrayList<>(List.of(python(), script.toString()));
        command.addAll(args);
        Path tmp = null;
        Process p = null;
        try {
            // Files on all three streams: no pipe can fill up and stall either side, and the timeout always holds.
            tmp = Files.createTempDirectory("hf-reference");
            Path in = Files.writeString(tmp.resolve("stdin"), stdin);
            Path out = tmp.resolve("stdout");
            Path err = tmp.resolve("stderr");
            p = new ProcessBuilder(command).redirectInput(in.toFile()).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            boolean done = p.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            String stderr = Files.exists(err) ? Files.readString(err, StandardCharsets.UTF_8) : "";
            if (!done) throw new IllegalStateException(String.join(" ", command) + " did not finish in " + TIMEOUT + "; stderr:\n" + stderr);
            String stdout = Files.readString(out, StandardCharsets.UTF_8);
            if (p.exitValue() != 0)
                throw new IllegalStateException(String.join(" ", command) + " exited with " + p.exitValue() + "; stderr:\n" + stderr
                        + "\nstdout:\n" + stdout);
            return stdout;
        } catch (IOException e) {
            throw new IllegalStateException("running " + String.join(" ", command) + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + String.join(" ", command), e);
        } finally {
            if (p != null) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
            if (tmp != null) deleteQuietly(tmp);
        }
    }

    private static List<JsonNode> lines(String stdout) {
        List<JsonNode> out = new ArrayList<>();
        for (String line : stdout.split("\n")) {
            if (line.isBlank()) continue;
            try {
                out.add(Json.MAPPER.readTree(line));
            } catch (IOException e) {
                throw new IllegalStateException("not a JSON line from the reference: " + line, e);
            }
        }
        return out;
    }

    private static double[] doubles(JsonNode array) {
        double[] v = new double[array.size()];
        for (int i = 0; i < v.length; i++) v[i] = array.get(i).isNull() ? Double.NaN : array.get(i).asDouble();
        return v;
    }

    private static void deleteQuietly(Path dir) {
        try (var files = Files.list(dir)) {
            for (Path f : files.toList()) Files.deleteIfExists(f);
            Files.deleteIfExists(dir);
        } catch (IOException ignored) {
            // a temporary directory left behind is harmless
        }
    }
}
