package dev.agentswarm.app.cli;

import picocli.CommandLine.Command;

@Command(name = "bench", mixinStandardHelpOptions = true, description = "Benchmarks that print the project's figures.",
        subcommands = {BenchEpisodesCommand.class, BenchGenerateCommand.class, BenchLearnerCommand.class, BenchSandboxCommand.class,
                BenchSearchCommand.class, BenchSftCommand.class, BenchSwarmCommand.class, BenchResumeCommand.class, BenchClusterCommand.class,
                BenchMcpCommand.class, BenchServeCommand.class})
public final class BenchCommand implements Runnable {

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
