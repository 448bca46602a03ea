package dev.agentswarm.policy.hf;

import ai.djl.ndarray.NDArray;
import ai.djl.nn.Parameter;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.policy.model.CausalLm;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes a model back in Hugging Face's layout, so transformers and vLLM load what agentswarm
 * trained: {@code config.json} (the source's, with the stored dtype), the weights under Hugging
 * Face's names in {@code model.safetensors} or in shards of at most {@code maxShardBytes} with
 * {@code model.safetensors.index.json}, and the source folder's tokenizer and generation files.
 * BF16 is rounded to nearest-even, as PyTorch casts; a BF16 checkpoint loaded and saved unchanged
 * is bit-identical. Files are written aside and moved into place, the index last.
 */
public final class HfSaver {

    /** What a model folder carries besides config and weights; copied when the source has them. */
    public static final List<String> COMPANION_FILES = List.of("tokenizer.json", "tokenizer_config.json",
            "special_tokens_map.json", "generation_config.json", "chat_template.jinja", "chat_template.json", "vocab.json",
            "merges.txt", "tokenizer.model", "added_tokens.json");

    /** Hugging Face's default shard limit. */
    public static final long DEFAULT_SHARD_BYTES = 5_000_000_000L;

    private HfSaver() {}

    /**
     * @param source the folder the model was loaded from (its config and companion files are kept)
     * @param dtype {@code bfloat16}, {@code float16} or {@code float32}
     */
    public static void save(CausalLm model, HfModelConfig config, Path source, Path target, String dtype, long maxShardBytes)
            throws IOException {
        String st = switch (dtype) {
            case "bfloat16" -> "BF16";
            case "float16" -> "F16";
            case "float32" -> "F32";
            default -> throw new IllegalArgumentException("dtype " + dtype + " (bfloat16, float16 or float32)");
        };
        int width = st.equals("F32") ? 4 : 2;
        Files.createDirectories(target);
        Map<String, Parameter> params = model.namedParameters();
        List<HfLayout.Part> parts = HfLayout.parts(model.config());
        // Shards fill in state-dict order, as transformers' save_pretrained fills them.
        List<List<HfLayout.Part>> shards = new ArrayList<>();
        List<HfLayout.Part> current = null;
        long inShard = 0;
        long total = 0;
        for (HfLayout.Part p : parts) {
            long bytes = p.elements() * width;
            if (current == null || (!current.isEmpty() && inShard + bytes > maxShardBytes)) {
                current = new ArrayList<>();
                shards.add(current);
                inShard = 0;
            }
            current.add(p);
            inShard += bytes;
            total += bytes;
        }
        Map<String, String> weightMap = new TreeMap<>();
        for (int i = 0; i < shards.size(); i++) {
            String name = shards.size() == 1 ? "model.safetensors"
                    : String.format("model-%05d-of-%05d.safetensors", i + 1, shards.size());
            writeShard(target.resolve(name), shards.get(i), params, st);
            for (HfLayout.Part p : shards.get(i)) weightMap.put(p.hfName(), name);
        }
        for (String f : COMPANION_FILES) {
            Path from = source.resolve(f);
            if (Files.isRegularFile(from) && !from.toAbsolutePath().normalize().equals(target.resolve(f).toAbsolutePath().normalize())) {
                Files.copy(from, target.resolve(f), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        ObjectNode json = config.json().deepCopy();
        if (json.has("dtype")) json.put("dtype", dtype);
        else json.put("torch_dtype", dtype);
        writeAtomically(target.resolve("config.json"), Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(json));
        Path index = target.resolve("model.safetensors.index.json");
        if (shards.size() > 1) {
            ObjectNode idx = Json.MAPPER.createObjectNode();
            idx.putObject("metadata").put("total_size", total);
            ObjectNode map = idx.putObject("weight_map");
            weightMap.forEach(map::put);
            writeAtomically(index, Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(idx));
            Files.deleteIfExists(target.resolve("model.safetensors"));
        } else {
            Files.deleteIfExists(index);
        }
    }

    private static void writeShard(Path file, List<HfLayout.Part> parts, Map<String, Parameter> params, String dtype)
            throws IOException {
        int width = dtype.equals("F32") ? 4 : 2;
        ObjectNode header = Json.MAPPER.createObjectNode();
        header.putObject("__metadata__").put("format", "pt");
        long offset = 0;
        for (HfLayout.Part p : parts) {
            ObjectNode entry = header.putObject(p.hfName());
            entry.put("dtype", dtype);
            var shape = entry.putArray("shape");
            for (long d : p.shape()) shape.add(d);
            long bytes = p.elements() * width;
            entry.putArray("data_offsets").add(offset).add(offset + bytes);
            offset += bytes;
        }
        byte[] json = header.toString().getBytes(StandardCharsets.UTF_8);
        int padded = (json.length + 7) / 8 * 8;
        ByteBuffer head = ByteBuffer.allocate(8 + padded).order(ByteOrder.LITTLE_ENDIAN);
        head.putLong(padded).put(json);
        while (head.hasRemaining()) head.put((byte) ' ');
        Path partial = Files.createTempFile(file.toAbsolutePath().getParent(), file.getFileName().toString(), ".partial");
        try {
            try (FileChannel ch = FileChannel.open(partial, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                write(ch, head.flip());
                Map<String, FloatBuffer> views = new LinkedHashMap<>();
                for (HfLayout.Part p : parts) {
                    NDArray array = params.get(p.param()).getArray();
                    // On the host the parameter's memory is read in place; an accelerator's is copied once.
                    FloatBuffer values = views.computeIfAbsent(p.param(), k -> array.toByteBuffer(!array.getDevice().isGpu())
                            .order(ByteOrder.nativeOrder()).asFloatBuffer());
                    long rowWidth = array.getShape().dimension() == 1 ? 1 : array.getShape().get(1);
                    int from = Math.toIntExact(p.rowOffset() * rowWidth);
                    int n = Math.toIntExact(p.elements());
                    write(ch, narrow(values, from, n, dtype));
                }
            }
            Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(partial);
        }
    }

    /** n floats from {@code at}, little-endian in the stored dtype. */
    static ByteBuffer narrow(FloatBuffer values, int at, int n, String dtype) {
        ByteBuffer out = ByteBuffer.allocate(n * (dtype.equals("F32") ? 4 : 2)).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i++) {
            float v = values.get(at + i);
            switch (dtype) {
                case "F32" -> out.putFloat(v);
                case "BF16" -> out.putShort(toBf16(v));
                default -> out.putShort(toHalf(v));
            }
        }
        return out.flip();
    }

    /** float32 → bfloat16, round to nearest, ties to even; NaN stays NaN. */
    static short toBf16(float v) {
        int bits = Float.floatToRawIntBits(v);
        if (Float.isNaN(v)) return (short) ((bits >>> 16) | 0x40);
        return (short) ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16);
    }

    /** float32 → IEEE binary16, round to nearest even (Java 17 has no Float.floatToFloat16). */
    static short toHalf(float v) {
        int bits = Float.floatToRawIntBits(v);
        int sign = (bits >>> 16) & 0x8000;
        int exp = (bits >>> 23) & 0xff;
        int mant = bits & 0x7fffff;
        if (exp == 0xff) return (short) (sign | 0x7c00 | (mant != 0 ? 0x200 : 0));
        int e = exp - 127 + 15;
        if (e >= 0x1f) return (short) (sign | 0x7c00); // overflow: infinity
        if (e <= 0) {
            if (e < -10) return (short) sign; // underflow: zero
            mant |= 0x800000; // subnormal: shift the implicit bit in, then round
            int shift = 14 - e;
            int half = mant >>> shift;
            int rest = mant & ((1 << shift) - 1);
            int mid = 1 << (shift - 1);
            if (rest > mid || (rest == mid && (half & 1) == 1)) half++;
            return (short) (sign | half);
        }
        int half = (e << 10) | (mant >>> 13);
        int rest = mant & 0x1fff;
        if (rest > 0x1000 || (rest == 0x1000 && (half & 1) == 1)) half++; // may carry into the exponent: still right
        return (short) (sign | half);
    }

    private static void write(FileChannel ch, ByteBuffer data) throws IOException {
        while (data.hasRemaining()) ch.write(data);
    }

    private static void writeAtomically(Path file, byte[] bytes) throws IOException {
        Path partial = Files.createTempFile(file.toAbsolutePath().getParent(), file.getFileName().toString(), ".partial");
        try {
            Files.write(partial, bytes);
            Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(partial);
        }
    }
}
