package dev.agentswarm.app.cli;

import com.typesafe.config.Config;
import dev.agentswarm.app.SwarmNode;
import dev.agentswarm.core.protocol.SamplingParams;
import dev.agentswarm.policy.embedded.BatchGenerator;
import dev.agentswarm.policy.embedded.EmbeddedModel;
import dev.agentswarm.policy.embedded.Generation;
import dev.agentswarm.policy.embedded.GenerationRequest;
import dev.agentswarm.policy.embedded.GeneratorSettings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "generate", mixinStandardHelpOptions = true,
        description = {"Generates a continuation with the embedded model (a --model folder or the project's own) and prints the new ids,"
                + " their text and each token's log-prob under the model (and under the distribution it was sampled from)."
                + " Stops at the model's end-of-turn tokens or after --new tokens."})
public final class GenerateCommand implements Callable<Integer> {

    @Mixin
    WeightsOptions weights;

    @Mixin
    ModelInput input;

    @Option(names = "--new", defaultValue = "64", description = "Most tokens to generate (default: ${DEFAULT-VALUE}).")
    int newTokens;

    @Option(names = "--greedy", description = "Always the most likely token (temperature 0).")
    boolean greedy;

    @Option(names = "--temperature", defaultValue = "1.0", description = "Sampling temperature (default: ${DEFAULT-VALUE}).")
    double temperature;

    @Option(names = "--top-p", defaultValue = "1.0", description = "Nucleus sampling mass (default: ${DEFAULT-VALUE}).")
    double topP;

    @Option(names = "--top-k", defaultValue = "0", description = "Sample among the k most likely tokens; 0: all (default: ${DEFAULT-VALUE}).")
    int topK;

    @Option(names = "--seed", description = "Sampling seed (default: random).")
    Long seed;

    @Option(names = "--config", paramLabel = "FILE", description = "HOCON file overriding the defaults.")
    Path config;

    @Mixin
    JsonOption json;

    @Override
    public Integer call() throws Exception {
        if (newTokens < 1) throw new IllegalArgumentException("--new must be >= 1");
        Config cfg = weights.apply(SwarmNode.loadConfig(config));
        Report r = new Report();
        long loadStart = System.nanoTime();
        try (EmbeddedModel model = EmbeddedModel.fromConfig(cfg)) {
            double loadSeconds = (System.nanoTime() - loadStart) / 1e9;
            int[] prompt = input.resolve(model);
            if (prompt.length + newTokens > model.model().config().context()) {
                throw new IllegalArgumentException(prompt.length + " prompt tokens + " + newTokens + " new exceed the served context of "
                        + model.model().config().context());
            }
            SamplingParams sampling = new SamplingParams(greedy ? 0 : temperature, topP, topK, newTokens, List.of(), seed);
            Generation g;
            long start = System.nanoTime();
            try (BatchGenerator generator = model.newGenerator(GeneratorSettings.fromConfig(cfg))) {
                generator.submit(new GenerationRequest(1, prompt, sampling, model.template().stopTokenIds()));
                List<Generation> done = new ArrayList<>();
                while (done.isEmpty()) done.addAll(generator.step());
                g = done.get(0);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            r.line(model.describe() + " (loaded in " + String.format("%.2f", loadSeconds) + " s)");
            r.line(g.text());
            r.line(String.format("%d new tokens (%s) in %.2f s: %.1f tokens/s", g.tokens().length, g.finishReason(), seconds,
                    g.tokens().length / seconds));
            // The model's own log-probs of what it produced (temperature 1), from one pass over prompt and
            // answer; the sampler's are under the distribution it drew from (0 for greedy picks).
            int[] all = new int[prompt.length + g.tokens().length];
            System.arraycopy(prompt, 0, all, 0, prompt.length);
            System.arraycopy(g.tokens(), 0, all, prompt.length, g.tokens().length);
            float[] scored = LogprobsCommand.score(model, all);
            List<Double> logprobs = new ArrayList<>();
            List<Double> sampled = new ArrayList<>();
            for (int i = 0; i < g.tokens().length; i++) {
                logprobs.add(Report.round(scored[prompt.length - 1 + i], 6));
                sampled.add(Report.round(g.logprobs()[i], 6));
            }
            r.put("prompt_ids", prompt).put("ids", g.tokens()).put("text", g.text()).put("logprobs", logprobs)
                    .put("sampling_logprobs", sampled)
                    .put("finish_reason", g.finishReason().toString()).put("load_s", Report.round(loadSeconds, 3))
                    .put("tokens_per_s", Report.round(g.tokens().length / seconds, 2));
        }
        r.print(json.json);
        return 0;
    }
}
