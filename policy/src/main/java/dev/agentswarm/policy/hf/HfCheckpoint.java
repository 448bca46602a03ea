package dev.agentswarm.policy.hf;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Parameter;
import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.ModelWeights;
import dev.agentswarm.policy.model.SafetensorsFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A Hugging Face model folder: {@code config.json} and its weights, {@code model.safetensors} or the
 * shards named by {@code model.safetensors.index.json}, in BF16, F16 or F32. Loading reads every
 * header first and refuses a missing, unexpected or mis-shaped tensor by name before it copies
 * anything. The data is read in chunks through one reusable buffer and widened to F32 straight
 * into the parameter's own memory (DJL 0.35.1's PyTorch engine aborts on BF16 arrays, so the engine
 * holds F32): neither the heap nor a lingering mapping holds a second copy of the weights.
 */
public final class HfCheckpoint {

    /** One tensor on disk: its file, dtype, shape and byte range in the file. */
    public record Stored(Path file, String dtype, long[] shape, long begin, long end) {}

    /** A loaded checkpoint: what config.json says and the model built from it. */
    public record Loaded(HfModelConfig config, CausalLm model) {}

    private static final long MAX_HEADER = 100L << 20;

    private HfCheckpoint() {}

    /** Reads config.json and the weights into a new model under {@code manager}. @param context 0: the config's own */
    public static Loaded load(Path dir, NDManager manager, int context) throws IOException {
        HfModelConfig config = HfModelConfig.read(dir, context);
        Map<String, Stored> stored = tensors(dir);
        check(config, stored); // before allocating gigabytes for a model that cannot load
        CausalLm model = CausalLm.allocate(config.model(), manager);
        try {
            copyInto(model, stored);
        } catch (IOException | RuntimeException e) {
            model.getParameters().values().forEach(p -> p.getArray().close());
            throw e;
        }
        return new Loaded(config, model);
    }

    /** Copies a checkpoint's weights into a model of its shape, in place. */
    public static void loadWeights(CausalLm model, HfModelConfig config, Path dir) throws IOException {
        Map<String, Stored> stored = tensors(dir);
        check(config, stored);
        copyInto(model, stored);
    }

    /** Every tensor the folder's weight files hold, by name, read from their headers only. */
    public static Map<String, Stored> tensors(Path dir) throws IOException {
        Path index = dir.resolve("model.safetensors.index.json");
        Path single = dir.resolve("model.safetensors");
        Map<String, Stored> all = new LinkedHashMap<>();
        if (Files.isRegularFile(index)) {
            JsonNode map = Json.MAPPER.readTree(Files.readString(index)).path("weight_map");
            if (!map.isObject() || map.isEmpty()) throw new IllegalArgumentException(index + " has no weight_map");
            Set<String> files = new LinkedHashSet<>();
            map.forEach(f -> files.add(f.asText()));
            for (String f : files) {
                Path shard = dir.resolve(f).normalize();
                if (!shard.startsWith(dir.normalize())) throw new IllegalArgumentException(index + " names a file outside the folder: " + f);
                if (!Files.isRegularFile(shard)) throw new IllegalArgumentException(index + " names " + f + ", which is missing");
                all.putAll(header(shard));
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = map.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                Stored s = all.get(e.getKey());
                if (s == null || !s.file().getFileName().toString().equals(e.getValue().asText())) {
                    throw new IllegalArgumentException(index + " places " + e.getKey() + " in " + e.getValue().asText()
                            + ", but that file does not hold it");
                }
            }
        } else if (Files.isRegularFile(single)) {
            all.putAll(header(single));
        } else {
            throw new IllegalArgumentException(dir + " has neither model.safetensors nor model.safetensors.index.json");
        }
        return all;
    }

    /** The tensors of one safetensors file, from its header. */
    static Map<String, Stored> header(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            ByteBuffer len = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            if (size < 8 || ch.read(len, 0) != 8) throw new IllegalArgumentException(file + " is not a safetensors file");
            long headerLength = len.flip().getLong();
            if (headerLength <= 0 || headerLength > MAX_HEADER || 8 + headerLength > size) {
                throw new IllegalArgumentException(file + " is not a safetensors file: header length " + headerLength);
            }
            ByteBuffer json = ByteBuffer.allocate((int) headerLength);
            while (json.hasRemaining()) {
                if (ch.read(json, 8 + json.position()) < 0) throw new IllegalArgumentException(file + ": truncated header");
            }
            JsonNode header = Json.MAPPER.readTree(new String(json.array(), StandardCharsets.UTF_8));
            long dataStart = 8 + headerLength;
            Map<String, Stored> out = new LinkedHashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = header.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (e.getKey().equals("__metadata__")) continue;
                JsonNode t = e.getValue();
                String dtype = t.path("dtype").asText();
                int width = width(dtype);
                long[] shape = new long[t.path("shape").size()];
                long elements = 1;
                for (int i = 0; i < shape.length; i++) {
                    shape[i] = t.path("shape").get(i).asLong();
                    elements *= shape[i];
                }
                long begin = t.path("data_offsets").path(0).asLong(-1);
                long end = t.path("data_offsets").path(1).asLong(-1);
                if (width == 0) throw new IllegalArgumentException(file + ": tensor " + e.getKey() + " has dtype " + dtype + " (BF16, F16, F32 are supported)");
                if (begin < 0 || end - begin != elements * width || dataStart + end > size) {
                    throw new IllegalArgumentException(file + ": tensor " + e.getKey() + " has byte range [" + begin + ", " + end
                            + ") that does not fit its " + dtype + " shape " + Arrays.toString(shape) + " or the file");
                }
                out.put(e.getKey(), new Stored(file, dtype, shape, dataStart + begin, dataStart + end));
            }
            return out;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException(file + ": safetensors header is not JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** Refuses, naming them, the tensors the checkpoint lacks, has in a wrong shape, or has beyond the model. */
    static void check(HfModelConfig config, Map<String, Stored> stored) {
        List<String> problems = new ArrayList<>();
        Set<String> expected = new TreeSet<>();
        for (HfLayout.Part part : HfLayout.parts(config.model())) {
            expected.add(part.hfName());
            Stored s = stored.get(part.hfName());
            if (s == null) {
                problems.add("missing " + part.hfName());
            } else if (!Arrays.equals(s.shape(), part.shape())) {
                problems.add(part.hfName() + " is shaped " + Arrays.toString(s.shape()) + ", config.json implies "
                        + Arrays.toString(part.shape()));
            }
        }
        for (String name : stored.keySet()) {
            if (!expected.contains(name)) {
                problems.add("unexpected " + name + (name.equals("lm_head.weight") ? " (tie_word_embeddings is true)" : ""));
            }
        }
        if (!problems.isEmpty()) {
            int shown = Math.min(problems.size(), 8);
            throw new IllegalArgumentException("the weights do not match config.json (" + config.architecture() + "): "
                    + String.join("; ", problems.subList(0, shown)) + (problems.size() > shown ? "; and " + (problems.size() - shown) + " more" : ""));
        }
    }

    private static void copyInto(CausalLm model, Map<String, Stored> stored) throws IOException {
        Map<String, Parameter> params = model.namedParameters();
        ByteBuffer chunk = ByteBuffer.allocateDirect(CHUNK).order(ByteOrder.LITTLE_ENDIAN);
        Map<String, List<HfLayout.Part>> byParam = new LinkedHashMap<>();
        for (HfLayout.Part part : HfLayout.parts(model.config())) {
            byParam.computeIfAbsent(part.param(), k -> new ArrayList<>()).add(part);
        }
        for (Map.Entry<String, List<HfLayout.Part>> e : byParam.entrySet()) {
            NDArray array = params.get(e.getKey()).getArray();
            long[] shape = array.getShape().getShape();
            long rowWidth = shape.length == 1 ? 1 : shape[1];
            ByteBuffer storage = array.getDevice().isGpu() ? null : array.toByteBuffer(true);
            boolean inPlace = storage != null && storage.isDirect();
            // On the host the parameter's own memory is written; elsewhere a host copy is assembled and set once.
            ByteBuffer target = inPlace ? storage : ByteBuffer.allocateDirect(Math.toIntExact(array.getShape().size() * 4))
                    .order(ByteOrder.nativeOrder());
            FloatBuffer floats = target.duplicate().order(ByteOrder.nativeOrder()).asFloatBuffer();
            for (HfLayout.Part part : e.getValue()) {
                widen(stored.get(part.hfName()), floats, part.rowOffset() * rowWidth, part.elements(), chunk);
            }
            if (!inPlace) ModelWeights.overwrite(array, target);
        }
    }

    /** Bytes read at a time: one buffer, reused for every tensor, bounds what loading holds beside the model. */
    private static final int CHUNK = 16 << 20;

    /**
     * Reads one tensor in chunks and writes it as F32 into {@code out} from {@code at}. Read, not
     * mapped: a mapping stays in the process's resident memory until the collector drops it (1.2 GB
     * of a 0.6B BF16 checkpoint on top of its 2.4 GB of F32), while pages read go to the page cache.
     */
    private static void widen(Stored s, FloatBuffer out, long at, long elements, ByteBuffer chunk) throws IOException {
        int width = width(s.dtype());
        try (FileChannel ch = FileChannel.open(s.file(), StandardOpenOption.READ)) {
            long position = s.begin();
            int to = Math.toIntExact(at);
            long left = elements;
            while (left > 0) {
                int n = (int) Math.min(left, chunk.capacity() / width);
                chunk.clear().limit(n * width);
                while (chunk.hasRemaining()) {
                    int read = ch.read(chunk, position + chunk.position());
                    if (read < 0) throw new IOException(s.file() + " ended inside a tensor");
                }
                chunk.flip();
                switch (s.dtype()) {
                    case "F32" -> out.put(to, chunk.asFloatBuffer(), 0, n);
                    case "BF16" -> {
                        var src = chunk.asShortBuffer();
                        for (int i = 0; i < n; i++) out.put(to + i, Float.intBitsToFloat((src.get(i) & 0xffff) << 16));
                    }
                    case "F16" -> {
                        var src = chunk.asShortBuffer();
                        for (int i = 0; i < n; i++) out.put(to + i, SafetensorsFile.halfToFloat(src.get(i)));
                    }
                    default -> throw new IllegalStateException(s.dtype());
                }
                position += (long) n * width;
                to += n;
                left -= n;
            }
        }
    }

    private static int width(String dtype) {
        return switch (dtype) {
            case "F32" -> 4;
            case "BF16", "F16" -> 2;
            default -> 0;
        };
    }
}
