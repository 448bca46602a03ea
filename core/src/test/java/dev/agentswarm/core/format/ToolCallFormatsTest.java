package dev.agentswarm.core.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ToolCallFormatsTest {

    @Test
    void lookupByName() {
        assertInstanceOf(HermesFormat.class, ToolCallFormats.byName("hermes"));
        assertInstanceOf(ReActFormat.class, ToolCallFormats.byName("react"));
        assertInstanceOf(OpenAiToolCallsFormat.class, ToolCallFormats.byName("openai"));
        assertInstanceOf(JsonPlanFormat.class, ToolCallFormats.byName(" JSON-Plan "));
        assertSame(ToolCallFormats.byName("hermes"), ToolCallFormats.byName("hermes"));
    }

    @Test
    void unknownNameListsTheKnownOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ToolCallFormats.byName("xml"));
        assertTrue(e.getMessage().contains("'xml'"), e.getMessage());
        assertTrue(e.getMessage().contains("hermes, react, openai, json-plan"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ToolCallFormats.byName(null));
    }

    @Test
    void allInStableOrder() {
        assertEquals(List.of("hermes", "react", "openai", "json-plan"),
                ToolCallFormats.all().stream().map(ToolCallFormat::name).toList());
        assertEquals(List.of("hermes", "react", "openai", "json-plan"), ToolCallFormats.names());
    }

    /** The words meant for the reader leave the reasoning out, in text calls and native calls alike. */
    @Test
    void spokenWordsLeaveTheReasoningOut() {
        var hermes = ToolCallFormats.byName("hermes");
        var text = dev.agentswarm.core.protocol.Completion.ofText(
                "<think>they want the order</think>Let me check.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>", 1, 1);
        var f = new dev.agentswarm.core.protocol.ToolSpec("f", "f", dev.agentswarm.core.json.Json.object().put("type", "object"));
        ParsedCompletion parsed = hermes.parse(text, List.of(f));
        assertEquals("they want the order\nLet me check.", parsed.thought());
        assertEquals("Let me check.", ToolCallFormats.spoken(text, parsed));

        var openai = ToolCallFormats.byName("openai");
        var nativeCall = new dev.agentswarm.core.protocol.Completion("hm</think>One moment.", List.of(new dev.agentswarm.core.protocol.ToolCall(
                "c", "f", dev.agentswarm.core.json.Json.MAPPER.getNodeFactory().textNode("{}"))), null, null, null, 0, 1, 1);
        ParsedCompletion p2 = openai.parse(nativeCall, List.of(f));
        assertEquals("One moment.", ToolCallFormats.spoken(nativeCall, p2));
        var plain = dev.agentswarm.core.protocol.Completion.ofText("Sure.", 1, 1);
        assertEquals("Sure.", ToolCallFormats.spoken(plain, openai.parse(plain, List.of(f))) + "");
    }
}
