package dev.agentswarm.policy.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The safetensors format: an 8-byte little-endian header length, a JSON header naming each tensor's
 * dtype, shape and byte range (plus a string map under {@code __metadata__}), then the raw data.
 * Written here rather than through DJL's NDList encoder so the header is spec-conformant (padded to
 * 8 bytes, metadata kept) and so BF16 files can be read at all: DJL 0.35.1's PyTorch JNI aborts the
 * JVM on any BF16 tensor, so BF16 and F16 are widened to F32 in Java before they reach the engine.
 */
public final class SafetensorsFile {

    /** One tensor as little-endian F32 bytes, row-major. */
    public record Tensor(long[] shape, ByteBuffer data) {
        public long elements() {
            long n = 1;
            for (long d : shape) n *= d;
            return n;
        }
    }

    /** A decoded file: tensors in header order and the metadata strings. */
    public record Contents(Map<String, Tensor> tensors, Map<String, String> metadata) {}

    private static final long MAX_HEADER = 100L << 20;

    private SafetensorsFile() {}

    /** Encodes F32 tensors (data little-endian, exactly elements × 4 bytes each) with metadata. */
    public static byte[] encode(Map<String, Tensor> tensors, Map<String, String> metadata) {
        ObjectNode header = Json.MAPPER.createObjectNode();
        if (!metadata.isEmpty()) {
            ObjectNode meta = header.putObject("__metadata__");
            metadata.forEach(meta::put);
        }
        long offset = 0;
        for (Map.Entry<String, Tensor> e : tensors.entrySet()) {
            Tensor t = e.getValue();
            long bytes = t.elements() * 4;
            if (t.data().remaining() != bytes) {
                throw new IllegalArgumentException("tensor " + e.getKey() + " has " + t.data().remaining()
                        + " bytes, its shape needs " + bytes);
            }
            ObjectNode entry = header.putObject(e.getKey());
            entry.put("dtype", "F32");
            var shape = entry.putArray("shape");
            for (long d : t.shape()) shape.add(d);
            entry.putArray("data_offsets").add(offset).add(offset + bytes);
            offset += bytes;
        }
        byte[] json = header.toString().getBytes(StandardCharsets.UTF_8);
        int padded = (json.length + 7) / 8 * 8;
        long total = 8L + padded + offset;
        if (total > Integer.MAX_VALUE - 8) throw new IllegalArgumentException("weights of " + total + " bytes exceed 2 GiB");
        ByteBuffer out = ByteBuffer.allocate((int) total).order(ByteOrder.LITTLE_ENDIAN);
        out.putLong(padded).put(json);
        for (int i = json.length; i < padded; i++) out.put((byte) ' ');
        for (Tensor t : tensors.values()) out.put(t.data().duplicate().order(ByteOrder.LITTLE_ENDIAN));
        return out.array();
    }

    /** Decodes F32, F16 and BF16 tensors (the latter two widened to F32); other dtypes are refused by name. */
    public static Contents decode(byte[] bytes) {
        if (bytes.length < 8) throw new IllegalArgumentException("not a safetensors file: " + bytes.length + " bytes");
        ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        long headerLength = in.getLong();
        if (headerLength <= 0 || headerLength > MAX_HEADER || 8 + headerLength > bytes.length) {
            throw new IllegalArgumentException("not a safetensors file: header length " + headerLength
                    + " in a file of " + bytes.length + " bytes");
        }
        JsonNode header;
        try {
            header = Json.MAPPER.readTree(new String(bytes, 8, (int) headerLength, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalArgumentException("safetensors header is not JSON: " + e.getMessage(), e);
        }
        int dataStart = 8 + (int) headerLength;
        Map<String, String> metadata = new LinkedHashMap<>();
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = header.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getKey().equals("__metadata__")) {
                e.getValue().fields().forEachRemaining(m -> metadata.put(m.getKey(), m.getValue().asText()));
                continue;
            }
            tensors.put(e.getKey(), tensor(e.getKey(), e.getValue(), bytes, dataStart));
        }
        return new Contents(Collections.unmodifiableMap(tensors), Collections.unmodifiableMap(metadata));
    }

    public static void write(Path file, Map<String, Tensor> tensors, Map<String, String> metadata) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        // Written aside and moved, so a reader never sees half a file.
        Path partial = Files.createTempFile(parent, file.getFileName().toString(), ".partial");
        try {
            Files.write(partial, encode(tensors, metadata));
            Files.move(partial, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(partial);
        }
    }

    public static Contents read(Path file) throws IOException {
        try {
            return decode(Files.readAllBytes(file));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }

    /** IEEE 754 binary16 → binary32 (Java 17 has no Float.float16ToFloat). */
    public static float halfToFloat(short half) {
        int h = half & 0xffff;
        int sign = (h & 0x8000) << 16;
        int exponent = (h >>> 10) & 0x1f;
        int mantissa = h & 0x3ff;
        if (exponent == 0x1f) return Float.intBitsToFloat(sign | 0x7f800000 | (mantissa << 13)); // inf, NaN
        if (exponent == 0) {
            if (mantissa == 0) return Float.intBitsToFloat(sign);
            float value = mantissa * 0x1p-24f; // subnormal: mantissa · 2^-24
            return sign == 0 ? value : -value;
        }
        return Float.intBitsToFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
    }

    private static Tensor tensor(String name, JsonNode entry, byte[] bytes, int dataStart) {
        String dtype = entry.path("dtype").asText();
        JsonNode shapeNode = entry.path("shape");
        JsonNode offsets = entry.path("data_offsets");
        if (!shapeNode.isArray() || !offsets.isArray() || offsets.size() != 2) {
            throw new IllegalArgumentException("tensor " + name + ": header entry needs shape and data_offsets");
        }
        long[] shape = new long[shapeNode.size()];
        long elements = 1;
        for (int i = 0; i < shape.length; i++) {
            shape[i] = shapeNode.get(i).asLong();
            if (shape[i] < 0) throw new IllegalArgumentException("tensor " + name + ": negative dimension");
            elements *= shape[i];
        }
        long begin = offsets.get(0).asLong();
        long end = offsets.get(1).asLong();
        int width = switch (dtype) {
            case "F32" -> 4;
            case "F16", "BF16" -> 2;
            default -> throw new IllegalArgumentException("tensor " + name + ": dtype " + dtype
                    + " is not supported (F32, F16, BF16 are)");
        };
        if (begin < 0 || end < begin || dataStart + end > bytes.length || end - begin != elements * width) {
            throw new IllegalArgumentException("tensor " + name + ": byte range [" + begin + ", " + end
                    + ") does not fit its " + dtype + " shape or the file");
        }
        ByteBuffer raw = ByteBuffer.wrap(bytes, dataStart + (int) begin, (int) (end - begin)).slice()
                .order(ByteOrder.LITTLE_ENDIAN);
        if (width == 4) return new Tensor(shape, raw);
        ByteBuffer wide = ByteBuffer.allocate((int) elements * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (long i = 0; i < elements; i++) {
            short h = raw.getShort();
            wide.putFloat(dtype.equals("BF16") ? Float.intBitsToFloat((h & 0xffff) << 16) : halfToFloat(h));
        }
        return new Tensor(shape, wide.flip());
    }
}
