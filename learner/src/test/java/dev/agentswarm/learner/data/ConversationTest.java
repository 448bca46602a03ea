package dev.agentswarm.learner.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Role;
import org.junit.jupiter.api.Test;

class ConversationTest {

    private static Conversation parse(String json) throws Exception {
        return Conversation.fromHuggingFace(Json.parse(json));
    }

    @Test
    void readsToolCallsWithArgumentsAsObjectOrString() throws Exception {
        Conversation c = parse("""
                {"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"2+2?"},
                 {"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function",
                   "function":{"name":"calculator","arguments":"{\\"expression\\": \\"2+2\\"}"}}]},
                 {"role":"tool","tool_call_id":"c1","content":"4"},
                 {"role":"assistant","content":"4","tool_calls":[]}],
                 "tools":[{"type":"function","function":{"name":"calculator","description":"math",
                   "parameters":{"type":"object","properties":{"expression":{"type":"string"}}}}}]}
                """);
        assertEquals(5, c.messages().size());
        assertEquals(Role.ASSISTANT, c.messages().get(2).role());
        assertEquals("", c.messages().get(2).content());
        assertEquals("2+2", c.messages().get(2).toolCalls().get(0).arguments().get("expression").asText());
        assertEquals("c1", c.messages().get(3).toolCallId());
        assertEquals("calculator", c.tools().get(0).name());

        Conversation objectArgs = parse("""
                {"messages":[{"role":"assistant","content":"","tool_calls":[{"type":"function",
                  "function":{"name":"calculator","arguments":{"expression":"1"}}}]}]}""");
        assertEquals("1", objectArgs.messages().get(0).toolCalls().get(0).arguments().get("expression").asText());
    }

    @Test
    void roundTripsThroughTheHuggingFaceForm() throws Exception {
        Conversation c = ArithmeticConversations.generate(1, 3).get(0);
        assertEquals(c, Conversation.fromHuggingFace(Json.parse(Json.write(c.toHuggingFace()))));
    }

    @Test
    void malformedRecordsSayWhere() {
        assertReason("{\"messages\": 3}", "\"messages\" (an array) is required");
        assertReason("{\"messages\": []}", "\"messages\" is empty");
        assertReason("{\"messages\":[{\"role\":\"robot\",\"content\":\"x\"}]}", "messages[0]: unknown role 'robot'");
        assertReason("{\"messages\":[{\"role\":\"user\",\"content\":\"x\"},{\"role\":\"assistant\",\"tool_calls\":"
                + "[{\"function\":{\"name\":\"f\",\"arguments\":\"{oops\"}}]}]}",
                "messages[1]: tool_calls[0]: \"function.arguments\" is a string but not JSON");
        assertReason("{\"messages\":[{\"role\":\"user\",\"content\":{\"a\":1}}]}", "messages[0]: \"content\" must be a string");
        assertReason("{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"tools\":[{\"function\":{}}]}",
                "tools[0]: \"function.name\"");
    }

    private static void assertReason(String json, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parse(json));
        assertTrue(e.getMessage().startsWith(expected), e.getMessage());
    }
}
