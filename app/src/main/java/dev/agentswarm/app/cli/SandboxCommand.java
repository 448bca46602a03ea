package dev.agentswarm.app.cli;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import dev.agentswarm.app.SwarmNode;
import dev.agentswarm.sandbox.CodeTools;
import dev.agentswarm.sandbox.Execution;
import dev.agentswarm.sandbox.Language;
import dev.agentswarm.sandbox.Sandbox;
import dev.agentswarm.sandbox.SandboxSettings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "sandbox", mixinStandardHelpOptions = true, description = "Runs untrusted code the way the code tools do.",
        subcommands = SandboxCommand.Run.class)
public final class SandboxCommand implements Runnable {

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    @Command(name = "run", mixinStandardHelpOptions = true,
            description = {"Runs one program in a fresh sandbox (settings: agentswarm.sandbox) and prints its output, its error"
                    + " stream, exit status, time and the limit that stopped it, if any.",
                    "Exits with the program's status; 124 when it was killed at the time limit."})
    public static final class Run implements Callable<Integer> {

        @Parameters(index = "0", paramLabel = "FILE|-", description = "The program; - reads it from standard input.")
        String file;

        @Option(names = "--lang", paramLabel = "python|bash",
                description = "Its language (default: bash for a .sh file, python otherwise).")
        String lang;

        @Option(names = "--timeout", paramLabel = "S",
                description = "Wall-clock limit in seconds, replacing sandbox.wall-timeout (the CPU limit is raised to match).")
        Double timeoutSeconds;

        @Option(names = "--input", paramLabel = "FILE", description = "A file given to the program as its standard input.")
        Path input;

        @Option(names = "--config", paramLabel = "FILE", description = "HOCON file overriding the defaults (agentswarm.sandbox…).")
        Path config;

        @Mixin
        JsonOption json;

        @Override
        public Integer call() throws IOException {
            String source = file.equals("-") ? new String(System.in.readAllBytes(), StandardCharsets.UTF_8) : read(Path.of(file));
            String stdin = input == null ? "" : read(input);
            Language language = language();
            Execution e;
            try (Sandbox sandbox = Sandbox.create(settings(SwarmNode.loadConfig(config).getConfig("agentswarm.sandbox")))) {
                e = sandbox.run(language, source, stdin).toCompletableFuture().join();
            }
            Report r = new Report();
            if (!e.stdout().isEmpty()) r.line(e.stdout().endsWith("\n") ? e.stdout().substring(0, e.stdout().length() - 1) : e.stdout());
            if (e.stdoutCut()) r.line("[stdout cut at sandbox.max-output]");
            if (!e.stderr().isEmpty() || e.stderrCut()) {
                r.line("--- stderr ---");
                if (!e.stderr().isEmpty()) r.line(e.stderr().stripTrailing());
                if (e.stderrCut()) r.line("[stderr cut at sandbox.max-output]");
            }
            r.line(String.format(Locale.ROOT, "--- exit status %d, %d ms, %s", e.exitCode(), e.wallMillis(),
                    e.limit() == Execution.Limit.NONE ? "no limit reached" : "stopped by the " + CodeTools.describe(e.limit())));
            r.put("language", language.name().toLowerCase(Locale.ROOT)).put("exit_code", e.exitCode()).put("wall_ms", e.wallMillis())
                    .put("limit", e.limit().name().toLowerCase(Locale.ROOT)).put("stdout", e.stdout()).put("stderr", e.stderr())
                    .put("stdout_cut", e.stdoutCut()).put("stderr_cut", e.stderrCut());
            r.print(json.json);
            return e.limit() == Execution.Limit.WALL_TIME ? 124 : e.exitCode();
        }

        private Language language() {
            if (lang == null) return file.endsWith(".sh") ? Language.BASH : Language.PYTHON;
            return Language.parse(lang);
        }

        private SandboxSettings settings(Config sandbox) {
            if (timeoutSeconds != null) {
                if (!(timeoutSeconds > 0) || timeoutSeconds > 86_400) {
                    throw new IllegalArgumentException("--timeout takes seconds in (0, 86400], got " + timeoutSeconds);
                }
                long millis = Math.max(1, Math.round(timeoutSeconds * 1000));
                int cpu = Math.max(sandbox.getInt("cpu-seconds"), (int) Math.ceil(timeoutSeconds));
                sandbox = sandbox.withValue("wall-timeout", ConfigValueFactory.fromAnyRef(millis + "ms"))
                        .withValue("cpu-seconds", ConfigValueFactory.fromAnyRef(cpu));
            }
            // One program, run once: no interpreters started ahead.
            return SandboxSettings.fromConfig(sandbox.withValue("warm-sessions", ConfigValueFactory.fromAnyRef(0)));
        }

        private static String read(Path p) throws IOException {
            if (!Files.isRegularFile(p)) throw new IllegalArgumentException(p + " is not a file");
            return Files.readString(p, StandardCharsets.UTF_8);
        }
    }
}
