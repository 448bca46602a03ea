package dev.agentswarm.learner.sft;

import ai.djl.ndarray.NDManager;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.learner.optim.AdamW;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.ModelConfig;
import java.nio.file.Path;

/**
 * A process that does nothing but write checkpoints into a run folder, for {@link CheckpointKillTest}
 * to kill: from the step after the run's latest, each step is saved and then saved again (as a
 * training run's final checkpoint re-saves a step checkpoint-every saved), two kept, forever.
 * Its lines on stdout say what it is doing: {@code checkpoint-writer writing <step>} and
 * {@code checkpoint-writer saved <step> <millis>}.
 */
public final class CheckpointWriter {

    private CheckpointWriter() {}

    public static void main(String[] args) throws Exception {
        Path run = Path.of(args[0]);
        long step = Checkpoints.latest(run).map(c -> {
            try {
                return Checkpoints.readJson(c).get("step").asLong();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }).orElse(0L);
        try (NDManager root = NDManager.newBaseManager()) {
            CausalLm model = CausalLm.create(ModelConfig.preset("small"), root, 7);
            AdamW optimizer = new AdamW(model.trainableParameters(), new AdamW.Settings(0.9, 0.999, 1e-8, 0.01), root);
            while (true) {
                step++;
                for (int copy = 0; copy < 2; copy++) {
                    System.out.println("checkpoint-writer writing " + step);
                    long start = System.nanoTime();
                    Checkpoints.save(run, step, step, model, null, null, optimizer, Json.object().put("step", step).put("version", step),
                            null, 2);
                    System.out.println("checkpoint-writer saved " + step + " " + (System.nanoTime() - start) / 1_000_000);
                }
            }
        }
    }
}
