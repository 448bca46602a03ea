package dev.agentswarm.learner.sft;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.learner.optim.AdamW;
import dev.agentswarm.policy.hf.PeftAdapter;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.LoraAdapter;
import dev.agentswarm.policy.model.ModelWeights;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A run's checkpoints: {@code checkpoints/step-<n>/} with model.safetensors (stamped with version n),
 * optimizer.safetensors and state.json, plus a {@code checkpoints/latest} file naming the newest.
 * Each checkpoint is written into a temporary folder and renamed into place, and the pointer is
 * replaced by a rename too, so a crash mid-write leaves the previous checkpoint intact and current.
 */
public final class Checkpoints {

    public static final String MODEL = "model.safetensors";
    public static final String OPTIMIZER = "optimizer.safetensors";
    /** GRPO with β > 0: the frozen reference policy its KL term is taken against. */
    public static final String REFERENCE = "reference.safetensors";
    /** A LoRA run: the adapter in PEFT's layout (adapter_config.json, adapter_model.safetensors). */
    public static final String ADAPTER = "adapter";
    public static final String STATE = "state.json";
    public static final String LATEST = "latest";
    /** The weights again in Hugging Face's layout, for a model that came from a Hugging Face folder. */
    public static final String HF = "hf";

    /** Writes a model in another layout into a folder (a checkpoint's {@link #HF}). */
    @FunctionalInterface
    public interface ModelExport {
        void write(CausalLm model, Path folder) throws IOException;
    }

    private Checkpoints() {}

    public static Path folder(Path runDir) {
        return runDir.resolve("checkpoints");
    }

    public static Path save(Path runDir, CausalLm model, AdamW optimizer, TrainerState state, JsonNode config)
            throws IOException {
        return save(runDir, model, optimizer, state, config, null);
    }

    /** An SFT checkpoint, with the weights also in another layout when {@code export} is given. */
    public static Path save(Path runDir, CausalLm model, AdamW optimizer, TrainerState state, JsonNode config,
                            ModelExport export) throws IOException {
        ObjectNode json = state.toJson();
        json.set("config", config);
        return save(runDir, state.step(), state.step(), model, null, model.adapter(), optimizer, json, export);
    }

    /**
     * Writes {@code checkpoints/step-<step>/}: the weights stamped with {@code version}, the frozen
     * {@code reference} when there is one, the optimizer's moments and {@code state} as state.json;
     * then points {@code latest} at it.
     */
    public static Path save(Path runDir, long step, long version, CausalLm model, CausalLm reference, AdamW optimizer,
                            ObjectNode state) throws IOException {
        return save(runDir, step, version, model, reference, null, optimizer, state, null);
    }

    /**
     * As above, with the LoRA {@code adapter} (null for none) written to {@code adapter/} (the model
     * file then holds the base weights, unmerged), and with {@code export} the weights in Hugging
     * Face's layout in {@code hf/} too (what transformers and vLLM load; a LoRA run has no need of it:
     * its base is the folder it started from, and {@code adapter/} is what PEFT and vLLM load over
     * it). A run resumes from model.safetensors, which keeps the training precision.
     */
    public static Path save(Path runDir, long step, long version, CausalLm model, CausalLm reference, LoraAdapter adapter,
                            AdamW optimizer, ObjectNode state, ModelExport export) throws IOException {
        Path folder = folder(runDir);
        Files.createDirectories(folder);
        String name = "step-" + step;
        Path target = folder.resolve(name);
        Path partial = Files.createTempDirectory(folder, "." + name + ".partial-");
        try {
            ModelWeights.save(model, version, partial.resolve(MODEL));
            if (reference != null) ModelWeights.save(reference, 0, partial.resolve(REFERENCE));
            if (adapter != null) PeftAdapter.save(adapter, partial.resolve(ADAPTER), null);
            optimizer.save(partial.resolve(OPTIMIZER));
            if (export != null && adapter == null) export.write(model, partial.resolve(HF));
            Files.writeString(partial.resolve(STATE), state.toPrettyString(), StandardCharsets.UTF_8);
            if (Files.exists(target)) deleteTree(target); // a re-run of the same step replaces it
            Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            if (Files.exists(partial)) deleteTree(partial);
        }
        Path pointer = Files.createTempFile(folder, ".latest", ".partial");
        Files.writeString(pointer, name + "\n", StandardCharsets.UTF_8);
        Files.move(pointer, folder.resolve(LATEST), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return target;
    }

    /** A checkpoint's state.json. */
    public static JsonNode readJson(Path checkpoint) throws IOException {
        return Json.parse(Files.readString(checkpoint.resolve(STATE), StandardCharsets.UTF_8));
    }

    /** The checkpoint {@code latest} names, if the run has one. */
    public static Optional<Path> latest(Path runDir) throws IOException {
        Path pointer = folder(runDir).resolve(LATEST);
        if (!Files.exists(pointer)) return Optional.empty();
        String name = Files.readString(pointer, StandardCharsets.UTF_8).trim();
        Path dir = folder(runDir).resolve(name);
        if (!name.matches("step-\\d+") || !Files.isRegularFile(dir.resolve(STATE))) {
            throw new IllegalArgumentException(pointer + " names '" + name + "', which is not a complete checkpoint");
        }
        return Optional.of(dir);
    }

    public static TrainerState readState(Path checkpoint) throws IOException {
        JsonNode json = readJson(checkpoint);
        try {
            return TrainerState.fromJson(json);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(checkpoint.resolve(STATE) + ": " + e.getMessage(), e);
        }
    }

    /** Deletes a folder and everything under it. */
    public static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
