package dev.agentswarm.app.cli;

import com.typesafe.config.Config;

/** Opens {@link ServeCommand}'s package-private naming to the serve tests. */
public final class ServeCommandAccess {

    private ServeCommandAccess() {}

    public static String modelId(Config config) {
        return ServeCommand.modelId(config);
    }
}
