package dev.agentswarm.environments.tau2;

import dev.agentswarm.core.concurrent.Stages;
import dev.agentswarm.core.environment.ConversationPartner;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.SamplingParams;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * A τ² customer played by a model, as τ²'s user simulator plays it: its system prompt is the
 * simulation guidelines and the task's scenario; it sees the conversation from its own side (the
 * agent's messages as the user's turns, its own as the assistant's; the agent's tool calls never),
 * and it ends the conversation with {@code ###STOP###}, {@code ###TRANSFER###} or
 * {@code ###OUT-OF-SCOPE###}. It has no tools of its own (the retail user has none).
 */
final class ModelUser implements ConversationPartner {

    static final List<String> STOP_TOKENS = List.of("###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###");

    /** τ²'s simulation guidelines, in our words. */
    static final String GUIDELINES = """
            You are playing the role of a customer contacting a customer service agent. Your goal is to simulate a realistic
            customer interaction while following the scenario you are given.

            - Send one message at a time, as a customer would, and keep it short and natural.
            - Follow the scenario strictly: do not make up information that is not in it. If the agent asks for something the
              scenario does not give, say you do not know or do not have it.
            - Share information progressively: give details only when the agent asks for them or when they are needed.
            - Do not repeat the scenario's instructions word for word; say them in your own words.
            - When the goal of the scenario is met, send a message containing ###STOP### to end the conversation.
            - If you are transferred to another agent, send ###TRANSFER###.
            - If the scenario does not say what to do in the situation you are in, send ###OUT-OF-SCOPE###.""";

    private final Policy policy;
    private final String system;
    private final Tau2Episode episode;
    private final String episodeId;
    private final SamplingParams sampling;
    /** The conversation from the user's side: the agent's texts as user messages, its own replies as assistant messages. */
    private final List<Message> history = new ArrayList<>();

    ModelUser(Policy policy, String scenario, Tau2Episode episode, String episodeId, SamplingParams sampling) {
        this.policy = policy;
        this.system = (GUIDELINES + "\n\n<scenario>\n" + scenario + "\n</scenario>").strip();
        this.episode = episode;
        this.episodeId = episodeId;
        this.sampling = sampling;
    }

    @Override
    public String greeting() {
        return ScriptedUser.GREETING;
    }

    @Override
    public CompletionStage<Reply> reply(String agentMessage) {
        List<Message> messages;
        int turn;
        synchronized (this) {
            episode.agentSaid(agentMessage);
            history.add(Message.user(agentMessage));
            messages = new ArrayList<>();
            messages.add(Message.system(system));
            messages.addAll(history);
            turn = (history.size() + 1) / 2;
        }
        CompletionRequest request = new CompletionRequest(episodeId + "/user", turn, messages, List.of(), "none", sampling);
        return Stages.direct(policy.complete(request)).thenApply(c -> {
            String text = c.text() == null ? "" : c.text().strip();
            if (text.isEmpty()) throw new IllegalStateException("the user model answered nothing");
            synchronized (this) {
                history.add(Message.assistant(text));
            }
            episode.userSaid(text);
            return new Reply(text, STOP_TOKENS.stream().anyMatch(text::contains));
        });
    }
}
