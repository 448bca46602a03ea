package dev.agentswarm.learner.rl;

import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.PromptIds;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
import dev.agentswarm.policy.chat.ChatFormat;
import java.util.ArrayList;
import java.util.List;

/**
 * The prompt ids each assistant turn of a trajectory was generated after. When the policy said
 * what it conditioned on (the embedded model stores each turn's prompt ids in the trajectory, see
 * {@link PromptIds}), those ids, exactly; otherwise the prompt rendered again with the chat format
 * the embedded policy uses: the episode's messages up to that turn (or, when its context was
 * compressed, exactly the messages it saw). With a text tool-call format (hermes, react,
 * json-plan) the transcript is those messages, so the ids are the policy's own; the turn's
 * completion ids are taken as sampled, never re-tokenised.
 */
public final class TurnPrompts {

    private final ChatFormat template;

    public TurnPrompts(ChatFormat template) {
        this.template = template;
    }

    /** One prompt per assistant turn, in order. */
    public List<int[]> of(Trajectory t) {
        List<int[]> stored = PromptIds.rebuild(t.turns());
        List<Message> messages = new ArrayList<>(t.prompt());
        List<int[]> out = new ArrayList<>();
        for (Turn turn : t.turns()) {
            if (turn.isAssistant()) {
                int[] known = stored.get(out.size());
                out.add(known != null ? known : template.prompt(turn.context() != null ? turn.context() : messages, List.of()));
                messages.add(Message.assistant(turn.text()));
            } else {
                messages.add(new Message(turn.role(), turn.text(), null, null, null));
            }
        }
        return out;
    }
}
