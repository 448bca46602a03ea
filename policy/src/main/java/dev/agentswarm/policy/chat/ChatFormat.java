package dev.agentswarm.policy.chat;

import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.policy.tokenizer.TextTokenizer;
import java.util.List;

/**
 * How conversations become token ids for a model: the project's own ChatML ({@link ChatTemplate})
 * or a Hugging Face model's own chat template ({@link HfChatFormat}). The same rendering serves the
 * prompt of a completion and a training conversation, so what a model is trained on is what it is
 * later asked.
 */
public interface ChatFormat {

    /** A rendered conversation: token ids and, per id, 1 where the model is trained to produce it. */
    record Rendered(int[] ids, int[] lossMask) {
        public int trainedTokens() {
            int n = 0;
            for (int m : lossMask) n += m;
            return n;
        }
    }

    TextTokenizer tokenizer();

    /** The prompt for the next assistant turn: every message, then the opening of an assistant message. */
    int[] prompt(List<Message> messages, List<ToolSpec> tools);

    /** A whole conversation for training; the loss mask covers what each assistant message produced and its end token. */
    Rendered conversation(List<Message> messages, List<ToolSpec> tools);

    /** Ids that end an assistant turn. */
    int[] stopTokenIds();
}
