package dev.agentswarm.core.format;

import static dev.agentswarm.core.format.FormatTestSupport.TOOLS;
import static dev.agentswarm.core.format.FormatTestSupport.assertMentions;
import static dev.agentswarm.core.format.FormatTestSupport.json;
import static dev.agentswarm.core.format.FormatTestSupport.nativeCalls;
import static dev.agentswarm.core.format.FormatTestSupport.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Role;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.ToolStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

class OpenAiToolCallsFormatTest {

    private final OpenAiToolCallsFormat format = new OpenAiToolCallsFormat();

    @Test
    void nativeFormat() {
        assertEquals("openai", format.name());
        assertTrue(format.nativeTools());
        assertEquals("", format.toolsPrompt(TOOLS));
        assertEquals(List.of(), format.stopSequences());
    }

    @Test
    void argumentsStringsAreDecoded() {
        Completion c = nativeCalls(null,
                new ToolCall("call_0a1b2c", "get_weather", TextNode.valueOf("{\"city\": \"Paris\"}")),
                new ToolCall("call_9", "search", json("{\"query\":\"x\"}")));
        ParsedCompletion p = format.parse(c, TOOLS);
        assertEquals(List.of(), p.errors());
        assertEquals(List.of(new ToolCall("call_0a1b2c", "get_weather", json("{\"city\":\"Paris\"}")),
                new ToolCall("call_9", "search", json("{\"query\":\"x\"}"))), p.toolCalls());
        assertNull(p.finalAnswer());
        assertEquals("", p.thought());
    }

    @Test
    void emptyOrNullArgumentsAreAnEmptyObject() {
        ParsedCompletion p = format.parse(nativeCalls("", new ToolCall("a", "now", TextNode.valueOf("")),
                new ToolCall("b", "now", NullNode.getInstance()), new ToolCall("c", "now", null)), TOOLS);
        assertEquals(List.of(), p.errors());
        assertEquals(3, p.toolCalls().size());
        for (ToolCall call : p.toolCalls()) assertEquals(json("{}"), call.arguments());
    }

    @Test
    void badArgumentsNameTheCallAndTheJsonError() {
        Completion c = nativeCalls("Checking both.",
                new ToolCall("call_ok", "search", TextNode.valueOf("{\"query\": \"a\"}")),
                new ToolCall("call_bad", "get_weather", TextNode.valueOf("{\"city\": \"Paris\"")),
                new ToolCall("call_arr", "search", TextNode.valueOf("[\"a\"]")),
                new ToolCall("call_num", "search", IntNode.valueOf(3)));
        ParsedCompletion p = format.parse(c, TOOLS);
        assertEquals(List.of(new ToolCall("call_ok", "search", json("{\"query\":\"a\"}"))), p.toolCalls());
        assertEquals(3, p.errors().size());
        assertMentions(List.of(p.errors().get(0)), "tool call call_bad (get_weather)", "is a string that is not valid JSON",
                "line 1, column");
        assertMentions(List.of(p.errors().get(1)), "tool call call_arr (search)", "got a string holding an array");
        assertMentions(List.of(p.errors().get(2)), "tool call call_num (search)", "got a number");
        assertEquals("Checking both.", p.thought());
        assertNull(p.finalAnswer());
    }

    @Test
    void missingNameOrIdAndDuplicateIds() {
        ParsedCompletion p = format.parse(nativeCalls(null, new ToolCall("x", " ", TextNode.valueOf("{}")),
                new ToolCall(null, "now", TextNode.valueOf("{}")), new ToolCall("dup", "now", null),
                new ToolCall("dup", "now", null)), TOOLS);
        assertMentions(p.errors(), "tool call x has no function name");
        assertEquals(List.of("call_1", "dup", "call_3"), p.toolCalls().stream().map(ToolCall::id).toList());
    }

    @Test
    void contentIsTheAnswerWithoutCalls() {
        ParsedCompletion p = format.parse(text("<think>easy</think>\nParis is the capital."), TOOLS);
        assertEquals(List.of(), p.errors());
        assertEquals("Paris is the capital.", p.finalAnswer());
        assertEquals("easy", p.thought());

        assertMentions(format.parse(text("  "), TOOLS).errors(), "empty completion");
    }

    @Test
    void contentIsThoughtNextToCalls() {
        ParsedCompletion p = format.parse(nativeCalls("<think>need data</think>Let me check.",
                new ToolCall("c1", "now", TextNode.valueOf("{}"))), TOOLS);
        assertEquals("need data\nLet me check.", p.thought());
        assertNull(p.finalAnswer());
    }

    @Test
    void hermesBlocksInTextWhenTheServerHasNoToolParser() {
        String raw = "<think>weather</think>\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
        ParsedCompletion p = format.parse(text(raw), TOOLS);
        assertEquals(List.of(), p.errors());
        assertEquals(List.of(new ToolCall("call_0", "get_weather", json("{\"city\":\"Paris\"}"))), p.toolCalls());
        assertEquals("weather", p.thought());
        // the content drops the blocks: the template renders the calls from tool_calls
        assertEquals(Message.assistant("weather", p.toolCalls()), format.assistantMessage(text(raw), p));

        ParsedCompletion bad = format.parse(text("<tool_call>{\"name\": \"x\", \"arguments\": {]}</tool_call>"), TOOLS);
        assertMentions(bad.errors(), "block 1 is not valid JSON");
    }

    @Test
    void messages() {
        Completion c = nativeCalls("thinking", new ToolCall("c1", "now", TextNode.valueOf("{}")),
                new ToolCall("c2", "now", TextNode.valueOf("{")));
        ParsedCompletion p = format.parse(c, TOOLS);
        // only the understood call is in the history, so every call there gets its tool message
        assertEquals(Message.assistant("thinking", List.of(new ToolCall("c1", "now", json("{}")))),
                format.assistantMessage(c, p));
        List<Message> obs = format.observations(List.of(
                new ToolResult("c1", "now", "12:00", ToolStatus.OK, false, 0),
                new ToolResult("c3", "search", "timeout", ToolStatus.TIMEOUT, false, 0)));
        assertEquals(List.of(Message.tool("c1", "now", "12:00"), Message.tool("c3", "search", "timeout")), obs);
        Message fb = format.formatFeedback(p.errors());
        assertEquals(Role.USER, fb.role());
        assertTrue(fb.content().contains("tool call c2 (now)"));
    }
}
