package dev.agentswarm.workers;

import dev.agentswarm.core.concurrent.Stages;
import dev.agentswarm.core.environment.ConversationPartner;
import dev.agentswarm.core.protocol.Message;
import java.util.concurrent.CompletableFuture;

/**
 * An episode's conversation with the simulated user its task brings: the agent opens with its greeting,
 * each of its plain messages goes to the user, and the user's reply is what the agent reads next. Kept
 * apart from the {@link EpisodeActor} so what is said, and which message answers a conversation the user
 * closed, is plain code; the actor only waits for the reply.
 */
final class PartnerConversation {

    private final ConversationPartner partner;
    /** The partner's reply being waited for (a model-played user may take seconds), or null. */
    private CompletableFuture<ConversationPartner.Reply> pending;

    PartnerConversation(ConversationPartner partner) {
        this.partner = partner;
    }

    /** What the agent says first; the task's prompt is the partner's brief, not the agent's. */
    String greeting() {
        return partner.greeting();
    }

    /** The agent's message goes to the partner; a partner that throws fails the reply instead. */
    CompletableFuture<ConversationPartner.Reply> say(String agentMessage) {
        CompletableFuture<ConversationPartner.Reply> reply;
        try {
            reply = Stages.direct(partner.reply(agentMessage));
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        pending = reply;
        return reply;
    }

    /** The reply has arrived (or failed): nothing is waited for. */
    void replied() {
        pending = null;
    }

    /** The episode ends: a reply still coming is not wanted. */
    void stopWaiting() {
        if (pending != null) pending.cancel(true);
    }

    /** The partner's words as the message the agent reads; a reply without text is an empty message. */
    static Message heard(ConversationPartner.Reply reply) {
        return Message.user(reply.text() == null ? "" : reply.text());
    }

    /** The agent's last words to its partner: the answer of a conversation the partner closed. */
    String answerOnClose(EpisodeTranscript transcript) {
        String said = transcript.lastAgentMessage();
        return said != null ? said : partner.greeting();
    }
}
