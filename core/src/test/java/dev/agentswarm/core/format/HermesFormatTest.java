package dev.agentswarm.core.format;

import static dev.agentswarm.core.format.FormatTestSupport.TOOLS;
import static dev.agentswarm.core.format.FormatTestSupport.WEATHER;
import static dev.agentswarm.core.format.FormatTestSupport.assertMentions;
import static dev.agentswarm.core.format.FormatTestSupport.cutOff;
import static dev.agentswarm.core.format.FormatTestSupport.json;
import static dev.agentswarm.core.format.FormatTestSupport.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Role;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.ToolStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

class HermesFormatTest {

    private final HermesFormat format = new HermesFormat();

    private ParsedCompletion parse(String s) {
        return format.parse(text(s), TOOLS);
    }

    @Test
    void toolsPromptIsTheNousTemplate() {
        String expected = """
                # Tools

                You may call one or more functions to assist with the user query.

                You are provided with function signatures within <tools></tools> XML tags:
                <tools>
                {"type": "function", "function": {"name": "get_weather", "description": "Get the current weather in a given location", \
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string", \
                "enum": ["celsius", "fahrenheit"]}}, "required": ["city"]}}}
                </tools>

                For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
                <tool_call>
                {"name": <function-name>, "arguments": <args-json-object>}
                </tool_call>""";
        assertEquals(expected, format.toolsPrompt(List.of(WEATHER)));
        assertEquals("", format.toolsPrompt(List.of()));
        assertEquals("hermes", format.name());
        assertFalse(format.nativeTools());
    }

    @Test
    void qwen3ThinkingThenOneCall() {
        ParsedCompletion p = parse("<think>\nThe user wants the weather. I should call get_weather.\n</think>\n\n"
                + "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"unit\": \"celsius\"}}\n</tool_call>");
        assertEquals(List.of(), p.errors());
        assertEquals(List.of(new ToolCall("call_0", "get_weather", json("{\"city\":\"Paris\",\"unit\":\"celsius\"}"))),
                p.toolCalls());
        assertEquals("The user wants the weather. I should call get_weather.", p.thought());
        assertNull(p.finalAnswer());
        assertNull(p.plan());
    }

    @Test
    void twoParallelCallsGetIdsInOrder() {
        ParsedCompletion p = parse("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n"
                + "<tool_call>\n{\"name\": \"search\", \"arguments\": {\"query\": \"time in Paris\"}}\n</tool_call>");
        assertEquals(List.of(), p.errors());
        assertEquals(2, p.toolCalls().size());
        assertEquals(new ToolCall("call_0", "get_weather", json("{\"city\":\"Paris\"}")), p.toolCalls().get(0));
        assertEquals(new ToolCall("call_1", "search", json("{\"query\":\"time in Paris\"}")), p.toolCalls().get(1));
        assertEquals("", p.thought());
    }

    @Test
    void unterminatedFinalBlockIsAccepted() {
        // a stop sequence on </tool_call> strips the closing tag, as vLLM's (.*) alternative tolerates
        ParsedCompletion p = parse("Let me check.\n<tool_call>\n{\"name\": \"search\", \"arguments\": {\"query\": \"pekko\"}}\n");
        assertEquals(List.of(), p.errors());
        assertEquals(List.of(new ToolCall("call_0", "search", json("{\"query\":\"pekko\"}"))), p.toolCalls());
        assertEquals("Let me check.", p.thought());
    }

    @Test
    void truncatedBlockIsAnErrorThatSaysItWasCutOff() {
        ParsedCompletion p = format.parse(cutOff("<tool_call>\n{\"name\": \"search\", \"argu"), TOOLS);
        assertTrue(p.toolCalls().isEmpty());
        assertNull(p.finalAnswer());
        assertMentions(p.errors(), "block 1 is not valid JSON", "no closing </tool_call>", "token limit",
                HermesFormat.CALL_FORM);
    }

    @Test
    void argumentsAsJsonStringAreDecoded() {
        ParsedCompletion p = parse("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": \"{\\\"city\\\": \\\"Oslo\\\"}\"}\n</tool_call>");
        assertEquals(List.of(), p.errors());
        assertEquals(json("{\"city\":\"Oslo\"}"), p.toolCalls().get(0).arguments());
    }

    @Test
    void parametersIsAnAliasAndMissingArgumentsAreEmpty() {
        ParsedCompletion p = parse("<tool_call>{\"name\": \"roll\", \"parameters\": {\"sides\": 6}}</tool_call>"
                + "<tool_call>{\"name\": \"now\"}</tool_call><tool_call>{\"name\": \"now\", \"arguments\": \"\"}</tool_call>");
        assertEquals(List.of(), p.errors());
        assertEquals(json("{\"sides\":6}"), p.toolCalls().get(0).arguments());
        assertEquals(json("{}"), p.toolCalls().get(1).arguments());
        assertEquals(json("{}"), p.toolCalls().get(2).arguments());
        assertEquals("call_2", p.toolCalls().get(2).id());
    }

    @Test
    void plainTextIsTheFinalAnswerAndThinkIsTheThought() {
        ParsedCompletion p = parse("<think>\nIt is 21 degrees per the tool.\n</think>\n\n  It is 21 °C in Paris.\n");
        assertEquals(List.of(), p.errors());
        assertEquals("It is 21 °C in Paris.", p.finalAnswer());
        assertEquals("It is 21 degrees per the tool.", p.thought());
        assertTrue(p.toolCalls().isEmpty());

        ParsedCompletion q = parse("Paris.");
        assertEquals("Paris.", q.finalAnswer());
        assertEquals("", q.thought());
    }

    @Test
    void closingThinkWithoutOpeningTagEndsTheReasoning() {
        // templates that put <think> in the generation prompt leave only the closing tag in the completion
        ParsedCompletion p = parse("reasoning here\n</think>\n\nThe answer is 4.");
        assertEquals("The answer is 4.", p.finalAnswer());
        assertEquals("reasoning here", p.thought());
    }

    @Test
    void emptyCompletionIsAnError() {
        ParsedCompletion p = parse("   \n ");
        assertNull(p.finalAnswer());
        assertMentions(p.errors(), "empty completion");

        ParsedCompletion q = parse("<think>hmm</think>\n");
        assertNull(q.finalAnswer());
        assertEquals("hmm", q.thought());
        assertMentions(q.errors(), "empty completion", "after the reasoning");
    }

    @Test
    void unclosedThinkWithoutCallsIsAnError() {
        ParsedCompletion p = format.parse(cutOff("<think>\nLet me think about this for a long"), TOOLS);
        assertNull(p.finalAnswer());
        assertTrue(p.toolCalls().isEmpty());
        assertEquals("Let me think about this for a long", p.thought());
        assertMentions(p.errors(), "never closed with </think>", "token limit");
    }

    @Test
    void unclosedThinkEndsAtTheFirstCall() {
        ParsedCompletion p = parse("<think>\nI need the weather\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}}\n</tool_call>");
        assertEquals(List.of(), p.errors());
        assertEquals("I need the weather", p.thought());
        assertEquals("get_weather", p.toolCalls().get(0).name());
    }

    @Test
    void badJsonNamesTheBlockThePositionAndTheExpectedForm() {
        ParsedCompletion p = parse("<tool_call>\n{\"name\": \"search\", \"arguments\": {\"query\": \"x\",}}\n</tool_call>");
        assertTrue(p.toolCalls().isEmpty());
        assertNull(p.finalAnswer());
        assertEquals(1, p.errors().size());
        assertMentions(p.errors(), "<tool_call> block 1 is not valid JSON", "line 1, column", HermesFormat.CALL_FORM);
    }

    @Test
    void validCallsAreKeptNextToErrors() {
        ParsedCompletion p = parse("<tool_call>\n{\"name\": \"search\", \"arguments\": {\"query\": \"a\"}}\n</tool_call>\n"
                + "<tool_call>\n{\"name\": \"search\", \"arguments\": {\"query\": \"b\"\n</tool_call>\n"
                + "<tool_call>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_call>");
        assertEquals(2, p.toolCalls().size());
        assertEquals(new ToolCall("call_0", "search", json("{\"query\":\"a\"}")), p.toolCalls().get(0));
        assertEquals(new ToolCall("call_1", "now", json("{}")), p.toolCalls().get(1));
        assertEquals(1, p.errors().size());
        assertMentions(p.errors(), "block 2 is not valid JSON");
        assertNull(p.finalAnswer());
    }

    @Test
    void missingNameIsAnError() {
        ParsedCompletion p = parse("<tool_call>{\"arguments\": {\"query\": \"a\"}}</tool_call>");
        assertMentions(p.errors(), "block 1 needs \"name\"", "it is missing", HermesFormat.CALL_FORM);
        ParsedCompletion q = parse("<tool_call>{\"name\": 42, \"arguments\": {}}</tool_call>");
        assertMentions(q.errors(), "needs \"name\"", "got a number 42");
        ParsedCompletion r = parse("<tool_call>{\"name\": \"  \", \"arguments\": {}}</tool_call>");
        assertMentions(r.errors(), "needs \"name\"");
    }

    @Test
    void argumentsThatAreNotAnObjectAreAnError() {
        ParsedCompletion p = parse("<tool_call>{\"name\": \"search\", \"arguments\": [\"a\"]}</tool_call>");
        assertTrue(p.toolCalls().isEmpty());
        assertMentions(p.errors(), "block 1 (search)", "\"arguments\" must be a JSON object", "got an array");

        ParsedCompletion q = parse("<tool_call>{\"name\": \"search\", \"arguments\": \"{\\\"query\\\": \"}</tool_call>");
        assertMentions(q.errors(), "\"arguments\" is a string that is not valid JSON");

        ParsedCompletion r = parse("<tool_call>{\"name\": \"search\", \"arguments\": \"[1]\"}</tool_call>");
        assertMentions(r.errors(), "got a string holding an array");

        ParsedCompletion s = parse("<tool_call>[1, 2]</tool_call>");
        assertMentions(s.errors(), "block 1 item 1 must hold a JSON object, got a number");
    }

    @Test
    void strayClosingTagIsAnError() {
        ParsedCompletion p = parse("{\"name\": \"search\", \"arguments\": {}}\n</tool_call>");
        assertNull(p.finalAnswer());
        assertMentions(p.errors(), "stray </tool_call> without an opening <tool_call>", HermesFormat.CALL_FORM);

        ParsedCompletion q = parse("<tool_call>{\"name\": \"now\"}</tool_call></tool_call>");
        assertEquals(1, q.toolCalls().size());
        assertMentions(q.errors(), "stray </tool_call>");
    }

    @Test
    void proseAroundCallsIsThought() {
        ParsedCompletion p = parse("<think>plan</think>I will look it up.\n<tool_call>{\"name\": \"now\"}</tool_call>\nThen answer.");
        assertEquals("plan\nI will look it up.\nThen answer.", p.thought());
        assertNull(p.finalAnswer());
    }

    @Test
    void tolerantShapes() {
        // fenced JSON inside the block
        ParsedCompletion p = parse("<tool_call>\n```json\n{\"name\": \"now\", \"arguments\": {}}\n```\n</tool_call>");
        assertEquals(List.of(), p.errors());
        assertEquals("now", p.toolCalls().get(0).name());
        // a list of calls in one block
        ParsedCompletion q = parse("<tool_call>[{\"name\": \"now\"}, {\"name\": \"search\", \"arguments\": {\"query\": \"q\"}}]</tool_call>");
        assertEquals(List.of(), q.errors());
        assertEquals(List.of("call_0", "call_1"), q.toolCalls().stream().map(ToolCall::id).toList());
        // the OpenAI-shaped wrapper copied from the tools listing
        ParsedCompletion r = parse("<tool_call>{\"type\": \"function\", \"function\": {\"name\": \"search\", \"arguments\": {\"query\": \"z\"}}}</tool_call>");
        assertEquals(new ToolCall("call_0", "search", json("{\"query\":\"z\"}")), r.toolCalls().get(0));
        // a block left open before the next one
        ParsedCompletion s = parse("<tool_call>{\"name\": \"now\"}\n<tool_call>{\"name\": \"roll\", \"arguments\": {\"sides\": 20}}</tool_call>");
        assertEquals(List.of(), s.errors());
        assertEquals(List.of("now", "roll"), s.toolCalls().stream().map(ToolCall::name).toList());
    }

    @Test
    void trailingGarbageAndEmptyBlocksAreErrors() {
        ParsedCompletion p = parse("<tool_call>{\"name\": \"now\"} and more</tool_call>");
        assertTrue(p.toolCalls().isEmpty());
        assertMentions(p.errors(), "not valid JSON");
        ParsedCompletion q = parse("<tool_call>\n\n</tool_call>");
        assertMentions(q.errors(), "block 1 is empty");
    }

    @Test
    void tooManyBlocksAreCapped() {
        String s = "<tool_call>{\"name\": \"now\"}</tool_call>".repeat(HermesFormat.MAX_BLOCKS + 5);
        ParsedCompletion p = parse(s);
        assertEquals(HermesFormat.MAX_BLOCKS, p.toolCalls().size());
        assertMentions(p.errors(), "more than " + HermesFormat.MAX_BLOCKS);
    }

    @Test
    void manyErrorsAreCapped() {
        String s = "<tool_call>{bad}</tool_call>".repeat(40);
        ParsedCompletion p = parse(s);
        assertEquals(FormatSupport.MAX_ERRORS + 1, p.errors().size());
        assertMentions(p.errors(), "20 more problems not shown");
    }

    @Test
    void messages() {
        String raw = "<think>x</think><tool_call>{\"name\": \"now\"}</tool_call>";
        ParsedCompletion p = parse(raw);
        assertEquals(Message.assistant(raw), format.assistantMessage(text(raw), p));

        List<Message> obs = format.observations(List.of(
                new ToolResult("call_0", "get_weather", "{\"temp_c\": 21}", ToolStatus.OK, false, 0),
                new ToolResult("call_1", "nope", "unknown tool 'nope'", ToolStatus.UNKNOWN_TOOL, false, 0)));
        assertEquals(1, obs.size());
        assertEquals(Role.USER, obs.get(0).role());
        assertEquals("<tool_response>\n{\"temp_c\": 21}\n</tool_response>\n<tool_response>\nunknown tool 'nope'\n</tool_response>",
                obs.get(0).content());
        assertEquals(List.of(), format.observations(List.of()));

        Message fb = format.formatFeedback(List.of("block 1 is not valid JSON"));
        assertEquals(Role.USER, fb.role());
        assertTrue(fb.content().contains("- block 1 is not valid JSON"));
        assertTrue(fb.content().contains(HermesFormat.CALL_FORM));
    }
}
