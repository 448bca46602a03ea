package dev.agentswarm.app;

import dev.agentswarm.app.cli.BenchCommand;
import dev.agentswarm.app.cli.DemoCommand;
import dev.agentswarm.app.cli.DpoCommand;
import dev.agentswarm.app.cli.GenerateCommand;
import dev.agentswarm.app.cli.LogprobsCommand;
import dev.agentswarm.app.cli.EvalCommand;
import dev.agentswarm.app.cli.ExportCommand;
import dev.agentswarm.app.cli.NodeCommand;
import dev.agentswarm.app.cli.ReplayCommand;
import dev.agentswarm.app.cli.RunCommand;
import dev.agentswarm.app.cli.ServeCommand;
import dev.agentswarm.app.cli.RunsCommand;
import dev.agentswarm.app.cli.SandboxCommand;
import dev.agentswarm.app.cli.SftCommand;
import dev.agentswarm.app.cli.TokenizeCommand;
import dev.agentswarm.app.cli.ToolsCommand;
import dev.agentswarm.app.cli.TrainCommand;
import dev.agentswarm.app.cli.VersionCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code swarm} command line. */
@Command(name = "swarm", mixinStandardHelpOptions = true, versionProvider = VersionCommand.Provider.class,
        description = "Actor runtime for swarms of tool-using LLM agents that learn.",
        subcommands = {DemoCommand.class, RunCommand.class, ServeCommand.class, EvalCommand.class, ReplayCommand.class, BenchCommand.class, SftCommand.class,
                SandboxCommand.class, TrainCommand.class, NodeCommand.class, DpoCommand.class, ExportCommand.class,
                GenerateCommand.class, LogprobsCommand.class, TokenizeCommand.class, RunsCommand.class, ToolsCommand.class, VersionCommand.class,
                CommandLine.HelpCommand.class})
public final class Main implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.setProperty("ai.djl.offline", "true");
        System.setProperty("java.awt.headless", "true");
        // Training and scoring are compute-bound: one intra-op thread per core unless the user chose.
        if (System.getProperty("ai.djl.pytorch.num_threads") == null) {
            System.setProperty("ai.djl.pytorch.num_threads", String.valueOf(Runtime.getRuntime().availableProcessors()));
        }
        org.slf4j.LoggerFactory.getILoggerFactory(); // initialise logging before threads race to do it
        System.exit(commandLine().execute(args));
    }

    /** The configured command line, also used by tests to run commands in-process. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
            // Expected failures (bad input, unreachable server) get one clear line, not a stack trace.
            cmd.getErr().println("error: " + (e.getMessage() != null ? e.getMessage() : e.toString()));
            if (Boolean.getBoolean("swarm.debug")) e.printStackTrace(cmd.getErr());
            return 2;
        });
        return cl;
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
