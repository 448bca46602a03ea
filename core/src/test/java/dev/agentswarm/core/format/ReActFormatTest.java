package dev.agentswarm.core.format;

import static dev.agentswarm.core.format.FormatTestSupport.SEARCH;
import static dev.agentswarm.core.format.FormatTestSupport.TOOLS;
import static dev.agentswarm.core.format.FormatTestSupport.WEATHER;
import static dev.agentswarm.core.format.FormatTestSupport.assertMentions;
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

class ReActFormatTest {

    private final ReActFormat format = new ReActFormat();

    private ParsedCompletion parse(String s) {
        return format.parse(text(s), TOOLS);
    }

    private static ToolCall call(String name, String args) {
        return new ToolCall("call_0", name, json(args));
    }

    @Test
    void toolsPromptIsTheCanonicalReActPrompt() {
        String p = format.toolsPrompt(List.of(WEATHER, SEARCH));
        assertTrue(p.startsWith("Answer the following questions as best you can. You have access to the following tools:\n\n"
                + "get_weather: Get the current weather in a given location Parameters: {\"type\": \"object\", "
                + "\"properties\": {\"city\": {\"type\": \"string\"}, \"unit\": {\"type\": \"string\", "
                + "\"enum\": [\"celsius\", \"fahrenheit\"]}}, \"required\": [\"city\"]}\n\n"
                + "search: Search the web Parameters: "), p);
        assertTrue(p.contains("Action: the action to take, should be one of [get_weather, search]\n"), p);
        assertTrue(p.contains("""
                Use the following format:

                Question: the input question you must answer
                Thought: you should always think about what to do
                Action: the action to take, should be one of [get_weather, search]
                Action Input: the input to the action
                Observation: the result of the action
                ... (this Thought/Action/Action Input/Observation can be repeated zero or more times)
                Thought: I now know the final answer
                Final Answer: the final answer to the original input question

                Begin!"""), p);
        assertTrue(p.endsWith("Begin!"), "the task is the user message, not a Question line");
        assertEquals(List.of("\nObservation:", "Observation:"), format.stopSequences());
        assertFalse(format.nativeTools());
    }

    @Test
    void thoughtActionActionInput() {
        ParsedCompletion p = parse("Thought: I need the weather in Paris.\nAction: get_weather\nAction Input: {\"city\": \"Paris\"}\n");
        assertEquals(List.of(), p.errors());
        assertEquals(List.of(call("get_weather", "{\"city\":\"Paris\"}")), p.toolCalls());
        assertEquals("I need the weather in Paris.", p.thought());
        assertNull(p.finalAnswer());
    }

    @Test
    void hallucinatedObservationIsIgnored() {
        ParsedCompletion p = parse("Thought: look it up\nAction: search\nAction Input: {\"query\": \"pekko\"}\n"
                + "Observation: Pekko is a toolkit\nThought: I now know the final answer\nFinal Answer: a toolkit");
        assertEquals(List.of(), p.errors());
        assertEquals(List.of(call("search", "{\"query\":\"pekko\"}")), p.toolCalls());
        assertNull(p.finalAnswer(), "the answer after an imagined observation must not end the episode");
        assertEquals("look it up", p.thought());

        // without a newline before it as well
        ParsedCompletion q = parse("Action: search\nAction Input: {\"query\": \"a\"}Observation: made up");
        assertEquals(List.of(call("search", "{\"query\":\"a\"}")), q.toolCalls());

        Message m = format.assistantMessage(text("Thought: t\nAction: search\nAction Input: {\"query\": \"a\"}\nObservation: x\nFinal Answer: y"), p);
        assertEquals("Thought: t\nAction: search\nAction Input: {\"query\": \"a\"}", m.content());
    }

    @Test
    void finalAnswer() {
        ParsedCompletion p = parse("Thought: I now know the final answer\nFinal Answer: It is 21 °C\nand sunny.");
        assertEquals(List.of(), p.errors());
        assertEquals("It is 21 °C\nand sunny.", p.finalAnswer());
        assertEquals("I now know the final answer", p.thought());
        assertTrue(p.toolCalls().isEmpty());
    }

    @Test
    void bothActionAndFinalAnswerIsAnError() {
        ParsedCompletion p = parse("Thought: hmm\nAction: search\nAction Input: {\"query\": \"x\"}\nFinal Answer: 42");
        assertTrue(p.toolCalls().isEmpty());
        assertNull(p.finalAnswer());
        assertMentions(p.errors(), "both a final answer and a parse-able action");

        ParsedCompletion q = parse("Final Answer: 42\nAction: search\nAction Input: q");
        assertMentions(q.errors(), "both a final answer and a parse-able action");

        // an Action without input is not parse-able, so the answer stands (as in LangChain)
        ParsedCompletion r = parse("Action: search\nFinal Answer: 42");
        assertEquals("42", r.finalAnswer());
    }

    @Test
    void plainTextInputOfASingleParameterTool() {
        assertEquals(List.of(call("search", "{\"query\":\"weather in Paris\"}")),
                parse("Action: search\nAction Input: weather in Paris").toolCalls());
        // exactly one required property decides, even with optional ones
        assertEquals(List.of(call("get_weather", "{\"city\":\"Paris\"}")),
                parse("Action: get_weather\nAction Input: Paris").toolCalls());
        // a JSON string is decoded first
        assertEquals(List.of(call("search", "{\"query\":\"a \\\"quoted\\\" b\"}")),
                parse("Action: search\nAction Input: \"a \\\"quoted\\\" b\"").toolCalls());
        // a JSON scalar is kept when the schema wants that type, else it stays text
        assertEquals(List.of(call("roll", "{\"sides\":20}")), parse("Action: roll\nAction Input: 20").toolCalls());
        assertEquals(List.of(call("search", "{\"query\":\"42\"}")), parse("Action: search\nAction Input: 42").toolCalls());
    }

    @Test
    void fencedAndMultiLineJsonInput() {
        ParsedCompletion p = parse("Thought: go\nAction: transfer\nAction Input: ```json\n{\n  \"from\": \"a\",\n  \"to\": \"b\"\n}\n```\n");
        assertEquals(List.of(), p.errors());
        assertEquals(List.of(call("transfer", "{\"from\":\"a\",\"to\":\"b\"}")), p.toolCalls());
    }

    @Test
    void multiParameterToolNeedsAnObject() {
        ParsedCompletion p = parse("Action: transfer\nAction Input: from a to b");
        assertTrue(p.toolCalls().isEmpty());
        assertMentions(p.errors(), "Invalid Format", "must be a JSON object of the arguments of transfer",
                "\"required\": [\"from\", \"to\"]", "from a to b");
    }

    @Test
    void badJsonInputNamesThePosition() {
        ParsedCompletion p = parse("Action: transfer\nAction Input: {\"from\": \"a\" \"to\": \"b\"}");
        assertTrue(p.toolCalls().isEmpty());
        assertMentions(p.errors(), "'Action Input:' is not valid JSON", "line 1, column");
    }

    @Test
    void missingPieces() {
        assertMentions(parse("Thought: x\nAction: search\n").errors(), "Missing 'Action Input:' after 'Action:'");
        assertMentions(parse("Thought: I am not sure what to do.").errors(), "Invalid Format: Missing 'Action:' after 'Thought:'");
        assertMentions(parse("The answer is 4.").errors(), "Missing 'Action:' after 'Thought:'");
        assertMentions(parse("").errors(), "empty completion");
        assertMentions(parse("Action:\nAction Input: {}").errors(), "'Action:' is empty", "[get_weather, search, roll, now, transfer]");
        assertMentions(parse("Thought: done\nFinal Answer:   ").errors(), "'Final Answer:' is empty");
        assertMentions(parse("Action: search\nAction Input:").errors(), "'Action Input:' is empty");
    }

    @Test
    void emptyInputOfAToolWithoutRequiredParameters() {
        assertEquals(List.of(call("now", "{}")), parse("Action: now\nAction Input: ").toolCalls());
        assertEquals(List.of(call("now", "{}")), parse("Action: now\nAction Input: {}").toolCalls());
    }

    @Test
    void unknownTools() {
        ParsedCompletion p = parse("Action: calculator\nAction Input: 2+2");
        assertMentions(p.errors(), "'calculator' is not one of the tools [get_weather, search, roll, now, transfer]");
        // with an object the call goes through: the executor answers with an unknown-tool observation
        assertEquals(List.of(call("calculator", "{\"expr\":\"2+2\"}")),
                parse("Action: calculator\nAction Input: {\"expr\": \"2+2\"}").toolCalls());
    }

    @Test
    void labelVariants() {
        assertEquals(List.of(call("search", "{\"query\":\"q\"}")), parse("Action: [search]\nAction Input: q").toolCalls());
        assertEquals(List.of(call("search", "{\"query\":\"q\"}")), parse("Action: `search`\nAction Input: q").toolCalls());
        assertEquals(List.of(call("search", "{\"query\":\"q\"}")), parse("Thought 1: t\nAction 1: search\nAction 1 Input 1: q").toolCalls());
        assertEquals(List.of(call("search", "{\"query\":\"q\"}")), parse("  Action : search\r\n  Action Input : q\r\n").toolCalls());
        // a label mentioned inside a line is prose, not a call
        ParsedCompletion p = parse("Thought: the format wants an Action: line but I know the answer\nFinal Answer: 7");
        assertEquals("7", p.finalAnswer());
        // "Actionable:" is not "Action:"
        assertMentions(parse("Actionable: search\nAction Input: q").errors(), "Missing 'Action:'");
    }

    @Test
    void onlyTheFirstActionRuns() {
        ParsedCompletion p = parse("Action: search\nAction Input: first\nAction: search\nAction Input: second");
        assertEquals(List.of(call("search", "{\"query\":\"first\"}")), p.toolCalls());
    }

    @Test
    void thinkBlockIsThought() {
        ParsedCompletion p = parse("<think>reasoning</think>\nThought: go\nAction: now\nAction Input: {}");
        assertEquals("reasoning\ngo", p.thought());
        assertEquals(1, p.toolCalls().size());
    }

    @Test
    void messages() {
        List<Message> obs = format.observations(List.of(new ToolResult("call_0", "search", "Pekko is a toolkit",
                ToolStatus.OK, false, 0)));
        assertEquals(List.of(Message.user("Observation: Pekko is a toolkit")), obs);
        assertEquals(List.of(), format.observations(List.of()));
        Message fb = format.formatFeedback(List.of("Invalid Format: Missing 'Action:' after 'Thought:'"));
        assertEquals(Role.USER, fb.role());
        assertTrue(fb.content().contains("- Invalid Format: Missing 'Action:' after 'Thought:'"));
        assertTrue(fb.content().contains("Action Input: the input to the action"));
        assertTrue(fb.content().contains("Final Answer:"));
        String raw = "Thought: a\nAction: now\nAction Input: {}";
        assertEquals(Message.assistant(raw), format.assistantMessage(text(raw), parse(raw)));
    }
}
