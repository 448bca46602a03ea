package dev.agentswarm.policy.openai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolSpec;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * MCP tools are offered as {@code server.tool}; the OpenAI API accepts only {@code [a-zA-Z0-9_-]{1,64}} in
 * function names. What goes on the wire, and what comes back.
 */
class FunctionNamesTest {

    private static ToolSpec tool(String name) {
        return new ToolSpec(name, "a tool", Json.object().put("type", "object"));
    }

    @Test
    void dottedNamesTravelWithUnderscoresAndComeBackAsThemselves() throws Exception {
        String reply = """
                {"id":"x","object":"chat.completion","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant",
                 "content":null,"tool_calls":[{"id":"c2","type":"function","function":{"name":"everything_echo","arguments":"{\\"message\\":\\"hi\\"}"}},
                 {"id":"c3","type":"function","function":{"name":"get_weather","arguments":"{}"}}]}}],"usage":{"prompt_tokens":9,"completion_tokens":4}}
                """;
        try (RecordingChatServer server = RecordingChatServer.answering(RecordingChatServer.Reply.ok(reply))) {
            var settings = OpenAiSettings.of(server.baseUrl(), "m").withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(5));
            List<Message> history = List.of(Message.user("echo hi"),
                    Message.assistant("", List.of(new ToolCall("c1", "everything.echo", Json.object().put("message", "x")))),
                    Message.tool("c1", "everything.echo", "Echo: x"));
            var request = new CompletionRequest("ep", 2, history, List.of(tool("everything.echo"), tool("fs.read_file"), tool("get_weather")),
                    "everything.echo", null);
            Completion c = new OpenAiCompatiblePolicy(settings).complete(request).toCompletableFuture().get(10, TimeUnit.SECONDS);

            JsonNode body = server.last().json();
            List<String> sent = new java.util.ArrayList<>();
            for (JsonNode t : body.get("tools")) sent.add(t.at("/function/name").asText());
            assertEquals(List.of("everything_echo", "fs_read_file", "get_weather"), sent);
            for (String n : sent) assertTrue(FunctionNames.ACCEPTED.matcher(n).matches(), n);
            assertEquals("everything_echo", body.at("/messages/1/tool_calls/0/function/name").asText(), "the history uses the same name");
            assertEquals("everything_echo", body.at("/messages/2/name").asText());
            assertEquals("everything_echo", body.at("/tool_choice/function/name").asText());

            assertEquals(List.of("everything.echo", "get_weather"), c.toolCalls().stream().map(ToolCall::name).toList(),
                    "the episode reads its tools' own names");
            assertEquals("c2", c.toolCalls().get(0).id());
            assertEquals(9, c.promptTokens());
        }
    }

    @Test
    void wireNamesAvoidEachOtherAndTheLimit() {
        String longName = "server." + "x".repeat(80);
        FunctionNames n = FunctionNames.of(List.of(tool("a.b"), tool("a_b"), tool("a-b"), tool("a/b"), tool(longName), tool("ok")));
        assertEquals("a_b", n.wire("a_b"), "an accepted name is kept");
        assertEquals("a_b_2", n.wire("a.b"), "a_b is taken");
        assertEquals("a_b_3", n.wire("a/b"));
        assertEquals("a-b", n.wire("a-b"));
        assertEquals(64, n.wire(longName).length());
        assertTrue(n.wire(longName).startsWith("server_xxx"));
        assertEquals("ok", n.wire("ok"));
        assertEquals("not.offered", n.wire("not.offered"), "a name the request does not offer is left alone");
        Completion answer = new Completion("", List.of(new ToolCall("1", "a_b_3", Json.object()), new ToolCall("2", "a_b", Json.object())),
                null, null, null, 0, 0, 0);
        assertEquals(List.of("a/b", "a_b"), n.restore(answer).toolCalls().stream().map(ToolCall::name).toList());
        Completion plain = new Completion("hi", List.of(new ToolCall("1", "calculator", Json.object())), null, null, null, 0, 0, 0);
        assertSame(plain, FunctionNames.of(List.of(tool("calculator"))).restore(plain), "nothing to map, nothing changes");
    }
}
