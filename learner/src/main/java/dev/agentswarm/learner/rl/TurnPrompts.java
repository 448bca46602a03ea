package dev.agentswarm.learner.rl;

import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
import dev.agentswarm.policy.chat.ChatFormat;
import java.util.ArrayList;
import java.util.List;

/**
 * The prompt ids each assistant turn of a trajectory was generated after, rendered again with the
 * chat template the embedded policy uses: the episode's messages up to that turn (or, when its
 * context was compressed, exactly the messages it saw). With a text tool-call format (hermes,
 * react, json-plan) the transcript is those messages, so the ids are the policy's own; the turn's
 * completion ids are taken as sampled, never re-tokenised.
 */
public final class TurnPrompts {

    private final ChatFormat template;

    public TurnPrompts(ChatFormat template) {
        this.template = template;
    }

    /** One prompt per assistant turn, in order. */
    public List<int[]> of(Trajectory t) {
        List<Message> messages = new ArrayList<>(t.prompt());
        List<int[]> out = new ArrayList<>();
        for (Turn turn : t.turns()) {
            if (turn.isAssistant()) {
                out.add(template.prompt(turn.context() != null ? turn.context() : messages, List.of()));
                messages.add(Message.assistant(turn.text()));
            } else {
                messages.add(new Message(turn.role(), turn.text(), null, null, null));
            }
        }
        return out;
    }
}
