package dev.agentswarm.app.cli;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import dev.agentswarm.policy.model.LoraSettings;
import java.util.List;
import picocli.CommandLine.Option;

/** LoRA instead of full fine-tuning, written into agentswarm.learner.lora (PEFT's names and meanings). */
public final class LoraOptions {

    @Option(names = "--lora", description = "Train a LoRA adapter (agentswarm.learner.lora) instead of every weight.")
    boolean lora;

    @Option(names = "--lora-rank", paramLabel = "R", description = "The adapter's rank r (implies --lora).")
    Integer rank;

    @Option(names = "--lora-alpha", paramLabel = "ALPHA", description = "lora_alpha: updates scale by alpha / r (implies --lora).")
    Double alpha;

    @Option(names = "--lora-dropout", paramLabel = "P", description = "lora_dropout on the adapter's input (implies --lora).")
    Double dropout;

    @Option(names = "--lora-targets", split = ",", paramLabel = "MODULE,…",
            description = "q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj or all-linear (implies --lora).")
    List<String> targets;

    public Config apply(Config config) {
        return apply(config, LoraSettings.PATH);
    }

    /** The options written into the LoRA block at {@code path} (the learner's, or a supervised run's). */
    public Config apply(Config config, String path) {
        boolean on = lora || rank != null || alpha != null || dropout != null || targets != null;
        if (!on) return config;
        String p = path + ".";
        Config c = config.withValue(p + "enabled", ConfigValueFactory.fromAnyRef(true));
        if (rank != null) c = c.withValue(p + "rank", ConfigValueFactory.fromAnyRef(rank));
        if (alpha != null) c = c.withValue(p + "alpha", ConfigValueFactory.fromAnyRef(alpha));
        if (dropout != null) c = c.withValue(p + "dropout", ConfigValueFactory.fromAnyRef(dropout));
        if (targets != null) c = c.withValue(p + "targets", ConfigValueFactory.fromIterable(targets));
        LoraSettings.fromConfig(c.getConfig(path).atPath(LoraSettings.PATH)); // a bad value is refused here, before anything loads
        return c;
    }
}
