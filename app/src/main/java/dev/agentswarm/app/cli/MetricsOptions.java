package dev.agentswarm.app.cli;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import dev.agentswarm.app.metrics.HttpSettings;
import picocli.CommandLine.Option;

/** {@code --metrics-port}: serve the node's /metrics, /alive and /ready (config {@code agentswarm.http.port}). */
public final class MetricsOptions {

    @Option(names = "--metrics-port", paramLabel = "PORT",
            description = {"Serve the node's Prometheus /metrics, /alive and /ready on this port (0: a free one, printed), at",
                    "agentswarm.http.host (default 127.0.0.1). Default: agentswarm.http.port, off."})
    Integer metricsPort;

    /** {@code config} with the port given on the command line, checked like the config key. */
    public Config apply(Config config) {
        if (metricsPort == null) return config;
        Config c = config.withValue(HttpSettings.PORT, ConfigValueFactory.fromAnyRef(metricsPort));
        try {
            HttpSettings.fromConfig(c);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--metrics-port " + metricsPort + ": " + e.getMessage(), e);
        }
        return c;
    }
}
