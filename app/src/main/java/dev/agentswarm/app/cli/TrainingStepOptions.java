package dev.agentswarm.app.cli;

import dev.agentswarm.app.bench.SftBenchmark;
import picocli.CommandLine.Option;

/** The shape and length of a training-step benchmark, shared by {@code bench sft} and {@code bench learner}. */
public final class TrainingStepOptions {

    @Option(names = "--preset", defaultValue = "small", description = "Model preset: tiny, small or base (default ${DEFAULT-VALUE}).")
    String preset;

    @Option(names = "--batch", defaultValue = "16", description = "Sequences per step (default ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--seq", defaultValue = "256", description = "Tokens per sequence (default ${DEFAULT-VALUE}).")
    int seq;

    @Option(names = "--steps", defaultValue = "20", description = "Timed steps (default ${DEFAULT-VALUE}).")
    int steps;

    @Option(names = "--warmup", defaultValue = "3", description = "Untimed steps first (default ${DEFAULT-VALUE}).")
    int warmup;

    SftBenchmark.Settings settings() {
        return new SftBenchmark.Settings(preset, batch, seq, steps, warmup);
    }
}
