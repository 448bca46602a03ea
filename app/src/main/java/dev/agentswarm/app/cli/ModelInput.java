package dev.agentswarm.app.cli;

import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.policy.embedded.EmbeddedModel;
import java.util.Arrays;
import java.util.List;
import picocli.CommandLine.Option;

/** The token ids a model command starts from: given as ids, or text encoded by the model's tokenizer. */
final class ModelInput {

    @Option(names = "--ids", split = ",", paramLabel = "ID,ID,…", description = "Token ids, comma-separated.")
    int[] ids;

    @Option(names = "--prompt", paramLabel = "TEXT", description = "Text, encoded by the model's tokenizer (special tokens in it count as such).")
    String prompt;

    @Option(names = "--chat", description = "Render --prompt as a user message with the model's chat template, ready for the assistant's answer.")
    boolean chat;

    int[] resolve(EmbeddedModel model) {
        if ((ids == null) == (prompt == null)) throw new IllegalArgumentException("give exactly one of --ids and --prompt");
        if (chat && prompt == null) throw new IllegalArgumentException("--chat renders a --prompt");
        int[] out = ids != null ? ids
                : chat ? model.template().prompt(List.of(Message.user(prompt)), List.of()) : model.tokenizer().encode(prompt);
        if (out.length == 0) throw new IllegalArgumentException("no tokens to start from");
        int vocab = model.model().config().vocab();
        for (int id : out) {
            if (id < 0 || id >= vocab) throw new IllegalArgumentException("token id " + id + " outside the vocabulary 0.." + (vocab - 1));
        }
        if (out.length > model.model().config().context()) {
            throw new IllegalArgumentException(out.length + " tokens exceed the served context of " + model.model().config().context()
                    + " (agentswarm.policy.embedded.model-context)");
        }
        return Arrays.copyOf(out, out.length);
    }
}
