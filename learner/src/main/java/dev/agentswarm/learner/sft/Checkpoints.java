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
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A run's checkpoints: {@code checkpoints/step-<n>/} with model.safetensors (stamped with version n),
 * optimizer.safetensors and state.json (which carries every other file's size and checksum), plus a
 * {@code checkpoints/latest} file naming the newest. A checkpoint is written into a temporary folder,
 * forced to the disk and renamed into place, and the pointer is replaced by a rename too, so a crash
 * mid-write leaves the previous checkpoint intact and current; should the named one not verify (a
 * machine that lost what it had not synced, a bad disk), {@link #latest} falls back to the newest
 * that does. Re-saving a step moves the old copy aside before the new one takes its name, so there is
 * always one of the two to load.
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

    private static final Logger LOG = LoggerFactory.getLogger(Checkpoints.class);
    private static final String PARTIAL = ".partial-";
    /** A step's previous copy while a re-save of it takes its name. */
    private static final String REPLACED = ".replaced";
    /** A pruned checkpoint while it is deleted. */
    private static final String REMOVED = ".removed";
    private static final Pattern STEP = Pattern.compile("step-(\\d+)");
    private static final Pattern ASIDE = Pattern.compile("\\.step-(\\d+)\\.replaced");

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
        return save(runDir, model, optimizer, state, config, export, 0);
    }

    /** As above, keeping only the {@code keep} newest checkpoints afterwards (0 = all of them). */
    public static Path save(Path runDir, CausalLm model, AdamW optimizer, TrainerState state, JsonNode config,
                            ModelExport export, int keep) throws IOException {
        ObjectNode json = state.toJson();
        json.set("config", config);
        return save(runDir, state.step(), state.step(), model, null, model.adapter(), optimizer, json, export, keep);
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
        return save(runDir, step, version, model, reference, adapter, optimizer, state, export, 0);
    }

    /** As above, keeping only the {@code keep} newest checkpoints afterwards (0 = all of them). */
    public static Path save(Path runDir, long step, long version, CausalLm model, CausalLm reference, LoraAdapter adapter,
                            AdamW optimizer, ObjectNode state, ModelExport export, int keep) throws IOException {
        Path folder = folder(runDir);
        Files.createDirectories(folder);
        tidy(folder);
        String name = "step-" + step;
        Path target = folder.resolve(name);
        Path partial = Files.createTempDirectory(folder, "." + name + PARTIAL);
        try {
            ModelWeights.save(model, version, partial.resolve(MODEL));
            if (reference != null) ModelWeights.save(reference, 0, partial.resolve(REFERENCE));
            if (adapter != null) PeftAdapter.save(adapter, partial.resolve(ADAPTER), null);
            optimizer.save(partial.resolve(OPTIMIZER));
            if (export != null && adapter == null) export.write(model, partial.resolve(HF));
            ObjectNode json = state.deepCopy();
            json.set(CheckpointFiles.FILES, CheckpointFiles.checksums(partial));
            Files.writeString(partial.resolve(STATE), json.toPrettyString(), StandardCharsets.UTF_8);
            CheckpointFiles.syncTree(partial);
            // A re-save of a step: the old copy steps aside (and stays loadable there) until the new one has its name.
            Path aside = Files.exists(target) ? folder.resolve("." + name + REPLACED) : null;
            if (aside != null) Files.move(target, aside, StandardCopyOption.ATOMIC_MOVE);
            Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE);
            CheckpointFiles.syncFolder(folder);
            if (aside != null) deleteTree(aside);
        } finally {
            if (Files.exists(partial)) deleteTree(partial);
        }
        Path pointer = Files.createTempFile(folder, ".latest", ".partial");
        Files.writeString(pointer, name + "\n", StandardCharsets.UTF_8);
        try (FileChannel ch = FileChannel.open(pointer, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
        Files.move(pointer, folder.resolve(LATEST), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        CheckpointFiles.syncFolder(folder);
        if (keep > 0) prune(folder, keep, name);
        return target;
    }

    /**
     * What a crash left in {@code checkpoints/}: a step's old copy set aside goes back where its new
     * copy never arrived, or goes once the new one is there; unfinished writes and removals go.
     */
    private static void tidy(Path folder) throws IOException {
        for (Path p : list(folder)) {
            String n = p.getFileName().toString();
            Matcher aside = ASIDE.matcher(n);
            if (aside.matches()) {
                Path step = folder.resolve("step-" + aside.group(1));
                if (Files.exists(step)) deleteTree(p);
                else Files.move(p, step, StandardCopyOption.ATOMIC_MOVE);
            } else if (n.startsWith(".") && (n.contains(PARTIAL) || n.endsWith(REMOVED) || n.endsWith(".partial"))) {
                deleteTree(p);
            }
        }
    }

    /** Keeps the {@code keep} newest checkpoints and {@code current}; a removed one is renamed first, so none is ever half there. */
    private static void prune(Path folder, int keep, String current) throws IOException {
        List<Path> steps = new ArrayList<>();
        for (Path p : list(folder)) if (STEP.matcher(p.getFileName().toString()).matches()) steps.add(p);
        steps.sort(Comparator.comparingLong(Checkpoints::stepOf).reversed());
        for (Path old : steps.subList(Math.min(keep, steps.size()), steps.size())) {
            if (old.getFileName().toString().equals(current)) continue;
            Path gone = folder.resolve("." + old.getFileName() + REMOVED);
            Files.move(old, gone, StandardCopyOption.ATOMIC_MOVE);
            deleteTree(gone);
        }
        CheckpointFiles.syncFolder(folder);
    }

    /** A checkpoint's state.json. */
    public static JsonNode readJson(Path checkpoint) throws IOException {
        return Json.parse(Files.readString(checkpoint.resolve(STATE), StandardCharsets.UTF_8));
    }

    /**
     * The checkpoint to resume from: the one {@code latest} names, if it verifies (every file there with
     * the size and checksum state.json gives); else the newest that verifies, a step's copy set aside
     * by a re-save included. Empty when the run has no checkpoint yet; an error when it has some and
     * none verifies, rather than a silent start from scratch over them.
     */
    public static Optional<Path> latest(Path runDir) throws IOException {
        Path folder = folder(runDir);
        if (!Files.isDirectory(folder)) return Optional.empty();
        Path pointer = folder.resolve(LATEST);
        List<String> refused = new ArrayList<>();
        String named = null;
        if (Files.exists(pointer)) {
            named = Files.readString(pointer, StandardCharsets.UTF_8).trim();
            if (STEP.matcher(named).matches()) {
                for (Path copy : List.of(folder.resolve(named), folder.resolve("." + named + REPLACED))) {
                    if (!Files.isDirectory(copy)) continue;
                    Optional<String> problem = CheckpointFiles.problem(copy);
                    if (problem.isEmpty()) return Optional.of(copy);
                    refused.add(copy.getFileName() + ": " + problem.get());
                }
            } else {
                refused.add(pointer + " names '" + named + "', which is no checkpoint");
            }
        }
        List<Path> candidates = new ArrayList<>();
        for (Path p : list(folder)) {
            String n = p.getFileName().toString();
            if ((STEP.matcher(n).matches() || ASIDE.matcher(n).matches()) && !n.equals(named) && !n.equals("." + named + REPLACED)) {
                candidates.add(p);
            }
        }
        // Newest first; of one step, its own name before a copy set aside.
        candidates.sort(Comparator.comparingLong(Checkpoints::stepOf).reversed()
                .thenComparing(p -> p.getFileName().toString().startsWith(".")));
        for (Path c : candidates) {
            Optional<String> problem = CheckpointFiles.problem(c);
            if (problem.isEmpty()) {
                if (!refused.isEmpty()) LOG.warn("resuming from {}: {}", c, String.join("; ", refused));
                return Optional.of(c);
            }
            refused.add(c.getFileName() + ": " + problem.get());
        }
        if (refused.isEmpty()) return Optional.empty();
        throw new IllegalArgumentException("no checkpoint in " + folder + " verifies (" + String.join("; ", refused)
                + "); move the folder away to start the run afresh");
    }

    /** Why {@code checkpoint} cannot be loaded (a file missing, cut short or changed), or empty when it can. */
    public static Optional<String> problem(Path checkpoint) {
        return CheckpointFiles.problem(checkpoint);
    }

    private static long stepOf(Path p) {
        Matcher m = STEP.matcher(p.getFileName().toString());
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    private static List<Path> list(Path folder) throws IOException {
        try (Stream<Path> entries = Files.list(folder)) {
            return entries.toList();
        }
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
