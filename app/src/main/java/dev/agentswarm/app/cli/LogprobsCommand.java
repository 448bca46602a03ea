package dev.agentswarm.app.cli;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.ParameterStore;
import com.typesafe.config.Config;
import dev.agentswarm.app.SwarmNode;
import dev.agentswarm.policy.embedded.EmbeddedModel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "logprobs", mixinStandardHelpOptions = true,
        description = {"Scores a sequence with the embedded model (a --model folder or the project's own): each token's log-prob"
                + " given the tokens before it (null for the first), from one causal pass."})
public final class LogprobsCommand implements Callable<Integer> {

    @Mixin
    WeightsOptions weights;

    @Mixin
    ModelInput input;

    @Option(names = "--config", paramLabel = "FILE", description = "HOCON file overriding the defaults.")
    Path config;

    @Mixin
    JsonOption json;

    @Override
    public Integer call() throws Exception {
        Config cfg = weights.apply(SwarmNode.loadConfig(config));
        Report r = new Report();
        try (EmbeddedModel model = EmbeddedModel.fromConfig(cfg)) {
            int[] ids = input.resolve(model);
            float[] scores = score(model, ids);
            List<Double> logprobs = new ArrayList<>();
            logprobs.add(null);
            double sum = 0;
            for (float s : scores) {
                logprobs.add(Report.round(s, 6));
                sum += s;
            }
            r.line(model.describe());
            r.line(String.format("%d tokens: total log-prob %.4f, %.4f per predicted token", ids.length, sum,
                    scores.length == 0 ? 0 : sum / scores.length));
            r.put("ids", ids).put("logprobs", logprobs).put("sum", Report.round(sum, 6));
        }
        r.print(json.json);
        return 0;
    }

    /** log p(ids[t] | ids[&lt;t]) for t ≥ 1, from one causal pass at temperature 1. */
    static float[] score(EmbeddedModel model, int[] ids) {
        if (ids.length < 2) return new float[0];
        try (NDManager step = model.manager().newSubManager()) {
            long[] row = new long[ids.length];
            for (int i = 0; i < ids.length; i++) row[i] = ids[i];
            return model.model().tokenLogProbs(new ParameterStore(step, false), step.create(row, new Shape(1, ids.length)), false)
                    .toFloatArray();
        }
    }
}
