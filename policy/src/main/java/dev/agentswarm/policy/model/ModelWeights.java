package dev.agentswarm.policy.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Parameter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A model's weights as safetensors bytes stamped with a policy version and the model's shape. Loading
 * copies into the live parameter arrays in place (never replaces them), so a cached ParameterStore,
 * the optimizer's state and anyone holding the model keep seeing the current weights. On the host it
 * writes into the arrays' own memory, so zero-copy views of it (the hybrid decoder's) stay valid too.
 */
public final class ModelWeights {

    public static final String VERSION_KEY = "agentswarm.policy_version";
    public static final String SHAPE_KEY = "agentswarm.model";

    private ModelWeights() {}

    /** The weights as safetensors bytes, F32, with {@code version} in the metadata. */
    public static byte[] export(CausalLm model, long version) {
        return SafetensorsFile.encode(tensors(model), metadata(model, version));
    }

    /**
     * The weights the model computes with, as safetensors bytes: with a switched-on LoRA adapter,
     * each wrapped weight is base + (alpha/r)·B·A, so a server (and the hybrid decoder) needs no
     * adapter; without one, the same bytes as {@link #export}. The model is not changed.
     */
    public static byte[] exportMerged(CausalLm model, long version) {
        if (!model.adapterActive()) return export(model, version);
        InferenceThreads.noGradHere();
        try (NDManager m = NDManager.newBaseManager(model.embeddingArray().getDevice())) {
            return SafetensorsFile.encode(tensors(model, m), metadata(model, version));
        }
    }

    /** {@link #exportMerged} into a file. */
    public static void saveMerged(CausalLm model, long version, Path file) throws IOException {
        if (!model.adapterActive()) {
            save(model, version, file);
            return;
        }
        InferenceThreads.noGradHere();
        try (NDManager m = NDManager.newBaseManager(model.embeddingArray().getDevice())) {
            SafetensorsFile.write(file, tensors(model, m), metadata(model, version));
        }
    }

    private static Map<String, SafetensorsFile.Tensor> tensors(CausalLm model) {
        return tensors(model, null);
    }

    /** The base weights; with {@code merged} (a manager for the sums), the adapter's changes added. */
    private static Map<String, SafetensorsFile.Tensor> tensors(CausalLm model, NDManager merged) {
        Map<String, SafetensorsFile.Tensor> tensors = new LinkedHashMap<>();
        for (Map.Entry<String, Parameter> e : model.namedParameters().entrySet()) {
            NDArray array = e.getValue().getArray();
            NDArray delta = merged == null ? null : model.adapter().weightDelta(e.getKey(), merged);
            if (delta != null) array = delta.addi(array);
            ByteBuffer data = array.toByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
            tensors.put(e.getKey(), new SafetensorsFile.Tensor(array.getShape().getShape(), data));
        }
        return tensors;
    }

    public static void save(CausalLm model, long version, Path file) throws IOException {
        SafetensorsFile.write(file, tensors(model), metadata(model, version));
    }

    /** Copies the weights in {@code bytes} into the model in place; returns their policy version (0 if unstamped). */
    public static long load(CausalLm model, byte[] bytes) {
        return load(model, SafetensorsFile.decode(bytes));
    }

    public static long load(CausalLm model, Path file) throws IOException {
        try {
            return load(model, SafetensorsFile.read(file));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }

    /** Checks every name and shape before copying anything, so a mismatched file leaves the model untouched. */
    public static long load(CausalLm model, SafetensorsFile.Contents contents) {
        Map<String, Parameter> params = model.namedParameters();
        for (Map.Entry<String, Parameter> e : params.entrySet()) {
            SafetensorsFile.Tensor t = contents.tensors().get(e.getKey());
            long[] expected = e.getValue().getArray().getShape().getShape();
            if (t == null) {
                throw new IllegalArgumentException("weights lack " + e.getKey() + " (model " + model.config().name()
                        + "; file model: " + contents.metadata().getOrDefault(SHAPE_KEY, "unstamped") + ")");
            }
            if (!Arrays.equals(expected, t.shape())) {
                throw new IllegalArgumentException("weights have " + e.getKey() + " shaped " + Arrays.toString(t.shape())
                        + ", the model needs " + Arrays.toString(expected) + " (file model: "
                        + contents.metadata().getOrDefault(SHAPE_KEY, "unstamped") + ")");
            }
        }
        for (String name : contents.tensors().keySet()) {
            if (!params.containsKey(name)) throw new IllegalArgumentException("weights have an unknown tensor " + name);
        }
        for (Map.Entry<String, Parameter> e : params.entrySet()) {
            overwrite(e.getValue().getArray(), contents.tensors().get(e.getKey()).data());
        }
        return versionOf(contents);
    }

    public static long versionOf(SafetensorsFile.Contents contents) {
        String v = contents.metadata().get(VERSION_KEY);
        try {
            return v == null ? 0 : Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(VERSION_KEY + " is not a number: " + v, e);
        }
    }

    /** Copies every weight of {@code source} into {@code target} in place (same shape required). */
    public static void copy(CausalLm source, CausalLm target) {
        Map<String, Parameter> to = target.namedParameters();
        for (Map.Entry<String, Parameter> e : source.namedParameters().entrySet()) {
            overwrite(to.get(e.getKey()).getArray(), e.getValue().getArray().toByteBuffer());
        }
    }

    /**
     * Writes {@code data} (the array's size, native order) into the array's storage. PyTorch's
     * {@code NDArray.set} would instead point the tensor at a new buffer and free the old one, leaving
     * every earlier zero-copy view reading freed memory; on the host the array's direct view is
     * written instead. An accelerator's memory has no such views, so {@code set} serves there.
     */
    public static void overwrite(NDArray array, ByteBuffer data) {
        if (!array.getDevice().isGpu()) {
            ByteBuffer storage = array.toByteBuffer(true);
            if (storage.isDirect()) {
                if (storage.remaining() != data.remaining()) {
                    throw new IllegalArgumentException(data.remaining() + " bytes for an array of " + storage.remaining());
                }
                storage.put(data.duplicate());
                return;
            }
        }
        array.set(data.duplicate());
    }

    private static Map<String, String> metadata(CausalLm model, long version) {
        ModelConfig c = model.config();
        Map<String, String> meta = new LinkedHashMap<>();
        meta.put("format", "pt");
        meta.put(VERSION_KEY, Long.toString(version));
        meta.put(SHAPE_KEY, String.format("%s d=%d layers=%d heads=%d ffn=%d vocab=%d", c.name(), c.dModel(), c.layers(),
                c.heads(), c.ffn(), c.vocab()));
        return meta;
    }
}
