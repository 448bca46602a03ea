package dev.agentswarm.app.cli;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The embedded model's weights and the tokenizer they were trained with, written into agentswarm.policy.embedded. */
public final class WeightsOptions {

    @Option(names = "--weights", paramLabel = "FILE", description = "Embedded model: safetensors weights (e.g. an SFT checkpoint's model.safetensors).")
    Path weights;

    @Option(names = "--tokenizer", paramLabel = "FILE", description = "Embedded model: the tokenizer JSON those weights were trained with.")
    Path tokenizer;

    /** {@code config} with the given ones as agentswarm.policy.embedded.weights and .tokenizer. */
    public Config apply(Config config) {
        Config c = config;
        if (weights != null) c = c.withValue("agentswarm.policy.embedded.weights", ConfigValueFactory.fromAnyRef(weights.toString()));
        if (tokenizer != null) c = c.withValue("agentswarm.policy.embedded.tokenizer", ConfigValueFactory.fromAnyRef(tokenizer.toString()));
        return c;
    }
}
