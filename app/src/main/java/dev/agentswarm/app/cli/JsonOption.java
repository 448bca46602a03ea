package dev.agentswarm.app.cli;

import picocli.CommandLine.Option;

/** The {@code --json} switch shared by every command that reports figures. */
public final class JsonOption {
    @Option(names = "--json", description = "Print one JSON object with the figures as the last line of output.")
    public boolean json;
}
