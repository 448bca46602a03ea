package dev.agentswarm.workers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.environment.ConversationPartner;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Timing;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

class PartnerConversationTest {

    @Test
    void aConversationTheUserClosedIsAnsweredByTheAgentsLastWords() {
        ConversationPartner user = new ConversationPartner() {
            @Override
            public String greeting() {
                return "Hi, how can I help?";
            }

            @Override
            public CompletionStage<Reply> reply(String agentMessage) {
                throw new IllegalStateException("the user model is down");
            }
        };
        PartnerConversation conversation = new PartnerConversation(user);
        assertTrue(conversation.say("hello").isCompletedExceptionally(), "a partner that throws fails its reply");
        assertEquals("", PartnerConversation.heard(new ConversationPartner.Reply(null, true)).content());

        EpisodeTranscript transcript = new EpisodeTranscript(Message.system("s"), 1, Message.assistant(user.greeting()),
                text -> 1);
        assertEquals("Hi, how can I help?", conversation.answerOnClose(transcript), "nothing said since the greeting");
        transcript.assistant(Completion.ofText("Your flight is booked.", 0, 4), List.of(), List.of(), null, Timing.NONE,
                Message.assistant("Your flight is booked."));
        assertEquals("Your flight is booked.", conversation.answerOnClose(transcript));
    }
}
