package dev.agentswarm.learner.rl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.PromptIds;
import dev.agentswarm.core.protocol.Role;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
import dev.agentswarm.policy.chat.ChatTemplate;
import dev.agentswarm.policy.tokenizer.BpeTokenizer;
import java.util.List;
import org.junit.jupiter.api.Test;

class TurnPromptsTest {

    private static final ChatTemplate TEMPLATE = new ChatTemplate(BpeTokenizer.untrained());
    private static final List<Message> PROMPT = List.of(Message.user("What is 6 * 7?"));

    @Test
    void theIdsAPolicyConditionedOnAreTrainedOnAsTheyWereNotRenderedAgain() {
        // Ids no rendering of these messages gives: the learner must take them as stored.
        int[] p1 = {1, 2, 3};
        int[] c1 = {40, 41};
        int[] p2 = {1, 2, 3, 40, 41, 7, 8};
        Turn first = Turn.assistant(0, completion("call", c1, p1), List.of(), List.of(), null, null)
                .withPrompt(PromptIds.store(p1, null, null));
        Turn result = Turn.observation(1, Role.TOOL, "42", List.of(), null);
        Turn second = Turn.assistant(2, completion("42", new int[] {50}, p2), List.of(), List.of(), null, null)
                .withPrompt(PromptIds.store(p2, p1, c1));
        List<int[]> prompts = new TurnPrompts(TEMPLATE).of(trajectory(first, result, second));
        assertEquals(2, prompts.size());
        assertArrayEquals(p1, prompts.get(0));
        assertArrayEquals(p2, prompts.get(1));
    }

    @Test
    void withoutStoredIdsTheConversationIsRenderedAsThePolicyRenderedIt() {
        Turn first = Turn.assistant(0, new Completion("The answer is 42.", List.of(), new int[] {9}, null, FinishReason.STOP, 0, 5, 1),
                List.of(), List.of(), null, null);
        List<int[]> prompts = new TurnPrompts(TEMPLATE).of(trajectory(first));
        assertArrayEquals(TEMPLATE.prompt(PROMPT, List.of()), prompts.get(0));
    }

    private static Completion completion(String text, int[] ids, int[] prompt) {
        return new Completion(text, List.of(), ids, null, FinishReason.STOP, 0, prompt.length, ids.length, 0, prompt);
    }

    private static Trajectory trajectory(Turn... turns) {
        return new Trajectory("e", "g", "t", PROMPT, List.of(turns), "42", StopReason.FINAL_ANSWER, null, null, null);
    }
}
