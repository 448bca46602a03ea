package dev.agentswarm.learner.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Role;
import dev.agentswarm.core.tool.ArithmeticExpression;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ArithmeticConversationsTest {

    @Test
    void everyConversationCallsTheCalculatorAndStatesItsExactResult() {
        for (Conversation c : ArithmeticConversations.generate(200, 5)) {
            List<Message> m = c.messages();
            assertEquals(List.of(Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT),
                    m.stream().map(Message::role).toList());
            String expression = m.get(2).toolCalls().get(0).arguments().get("expression").asText();
            assertEquals("calculator", m.get(2).toolCalls().get(0).name());
            assertTrue(m.get(1).content().contains(expression));
            String result = ArithmeticExpression.format(ArithmeticExpression.evaluate(expression));
            assertEquals(result, m.get(3).content());
            assertTrue(m.get(4).content().contains(result), m.get(4).content());
            assertEquals(m.get(2).toolCalls().get(0).id(), m.get(3).toolCallId());
            assertEquals("calculator", c.tools().get(0).name());
        }
    }

    @Test
    void theSameSeedWritesTheSameFile(@TempDir Path dir) throws Exception {
        ArithmeticConversations.write(dir.resolve("a.jsonl"), 50, 9);
        ArithmeticConversations.write(dir.resolve("b.jsonl"), 50, 9);
        ArithmeticConversations.write(dir.resolve("c.jsonl"), 50, 10);
        assertEquals(Files.readString(dir.resolve("a.jsonl")), Files.readString(dir.resolve("b.jsonl")));
        assertTrue(!Files.readString(dir.resolve("a.jsonl")).equals(Files.readString(dir.resolve("c.jsonl"))));
        assertEquals(50, ConversationDataset.read(dir.resolve("a.jsonl"), 0).conversations().size());
    }
}
