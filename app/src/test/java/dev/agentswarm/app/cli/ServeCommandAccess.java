package dev.agentswarm.app.cli;

import com.typesafe.config.Config;

/** Opens {@link ServeCommand}'s package-private naming to the serve tests. */
public final class ServeCommandAccess {

    private ServeCommandAccess() {}

    public static String modelId(Config config) {
        return ServeCommand.modelId(config);
    }

    /** Who {@code swarm serve ARGS} admits with {@code envKey} as SWARM_API_KEY (null: unset). */
    public static dev.agentswarm.app.serve.ServeAccess access(String envKey, String... args) {
        ServeCommand c = new ServeCommand();
        new picocli.CommandLine(c).parseArgs(args);
        return c.access(envKey);
    }
}
