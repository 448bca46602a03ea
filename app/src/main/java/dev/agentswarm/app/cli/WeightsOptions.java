package dev.agentswarm.app.cli;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import dev.agentswarm.core.json.Json;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The embedded model: a Hugging Face folder, or the project's own weights and the tokenizer they
 * were trained with; written into agentswarm.policy.embedded.
 */
public final class WeightsOptions {

    @Option(names = "--model", paramLabel = "DIR|NAME", description = {"A Hugging Face model folder (Qwen3, Qwen2.5, Llama-3) for the embedded"
            + " engine: config.json, safetensors weights, tokenizer.json and its chat template, e.g. from"
            + " huggingface-cli download Qwen/Qwen3-0.6B --local-dir DIR.", "With --endpoint: the name of the model the server serves."})
    String model;

    @Option(names = "--template-var", paramLabel = "KEY=VALUE", description = "A chat-template variable for --model, as apply_chat_template's"
            + " keyword arguments (repeatable): e.g. enable_thinking=false. VALUE is JSON when it parses as JSON, else a string.")
    Map<String, String> templateVariables = new LinkedHashMap<>();

    @Option(names = "--weights", paramLabel = "FILE", description = "Embedded model: safetensors weights (e.g. an SFT checkpoint's model.safetensors).")
    Path weights;

    @Option(names = "--tokenizer", paramLabel = "FILE", description = "Embedded model: the tokenizer JSON those weights were trained with.")
    Path tokenizer;

    /** {@code config} with the given ones in agentswarm.policy.embedded. */
    public Config apply(Config config) {
        Config c = config;
        if (model != null) {
            if (tokenizer != null) throw new IllegalArgumentException("--tokenizer belongs to the project's own models; --model brings its own");
            c = c.withValue("agentswarm.policy.embedded.model-dir", ConfigValueFactory.fromAnyRef(model.toString()));
        } else if (!templateVariables.isEmpty()) {
            throw new IllegalArgumentException("--template-var applies to a --model folder's chat template");
        }
        for (Map.Entry<String, String> e : templateVariables.entrySet()) {
            c = c.withValue("agentswarm.policy.embedded.template-variables." + e.getKey(), ConfigValueFactory.fromAnyRef(value(e.getValue())));
        }
        if (weights != null) c = c.withValue("agentswarm.policy.embedded.weights", ConfigValueFactory.fromAnyRef(weights.toString()));
        if (tokenizer != null) c = c.withValue("agentswarm.policy.embedded.tokenizer", ConfigValueFactory.fromAnyRef(tokenizer.toString()));
        return c;
    }

    /** true/false/numbers/JSON as such; anything else as the string it is. */
    static Object value(String text) {
        try {
            return Json.MAPPER.convertValue(Json.MAPPER.readTree(text), Object.class);
        } catch (Exception e) {
            return text;
        }
    }
}
