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
}
