package dev.agentswarm.core.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.core.tool.ToolSpecs;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** What an oracle writes in a format, the format reads back: calls with their arguments, or the answer. */
class FormatWriteTest {

    private static final ToolSpec SEARCH = ToolSpecs.oneString("search", "Search the documents.", "query", "what to look for");
    private static final ToolSpec CALC = ToolSpecs.oneString("calculator", "Evaluate.", "expression", "an expression");

    private static ToolCall call(String id, String name, String key, String value) {
        ObjectNode args = Json.object();
        args.put(key, value);
        return new ToolCall(id, name, args);
    }

    @ParameterizedTest
    @ValueSource(strings = {"hermes", "react", "openai"})
    void aWrittenCallIsParsedBack(String name) {
        ToolCallFormat format = ToolCallFormats.byName(name);
        ToolCall c = call("call_1", "search", "query", "capital of \"Norway\" {braces}");
        Completion written = format.write("I need the capital first.", List.of(c), null);
        ParsedCompletion parsed = format.parse(written, List.of(SEARCH, CALC));
        assertTrue(parsed.errors().isEmpty(), parsed.errors().toString());
        assertEquals(1, parsed.toolCalls().size());
        assertEquals("search", parsed.toolCalls().get(0).name());
        assertEquals(c.arguments(), parsed.toolCalls().get(0).arguments());
    }

    @ParameterizedTest
    @ValueSource(strings = {"hermes", "react", "openai"})
    void aWrittenAnswerIsParsedBack(String name) {
        ToolCallFormat format = ToolCallFormats.byName(name);
        ParsedCompletion parsed = format.parse(format.write("The search said Oslo.", List.of(), "Oslo"), List.of(SEARCH));
        assertTrue(parsed.errors().isEmpty(), parsed.errors().toString());
        assertEquals("Oslo", parsed.finalAnswer());
    }

    @Test
    void hermesWritesParallelCallsInOrder() {
        ToolCallFormat format = ToolCallFormats.byName("hermes");
        List<ToolCall> calls = List.of(call("a", "calculator", "expression", "2 + 3"), call("b", "calculator", "expression", "7 * 6"));
        ParsedCompletion parsed = format.parse(format.write("", calls, null), List.of(CALC));
        assertEquals(List.of("2 + 3", "7 * 6"), parsed.toolCalls().stream().map(t -> t.arguments().get("expression").asText()).toList());
    }

    @Test
    void aPlanIsWrittenAsTheAnswer() {
        ToolCallFormat format = ToolCallFormats.byName("json-plan");
        String plan = "{\"plugins\": [{\"pluginId\": \"plugin-1\", \"api_request_parameters\": {\"q\": \"x\"},"
                + " \"all_parameters_hydrated\": true, \"dependencies\": []}]}";
        ParsedCompletion parsed = format.parse(format.write("Only plugin-1 fits.", List.of(), plan), List.of());
        assertTrue(parsed.errors().isEmpty(), parsed.errors().toString());
        assertEquals("plugin-1", parsed.plan().get("plugins").get(0).get("pluginId").asText());
        assertTrue(parsed.thought().contains("Only plugin-1 fits."), parsed.thought());
    }

    @Test
    void whatAFormatCannotExpressIsRefused() {
        List<ToolCall> two = List.of(call("a", "search", "query", "x"), call("b", "search", "query", "y"));
        assertThrows(IllegalArgumentException.class, () -> ToolCallFormats.byName("react").write("", two, null));
        assertThrows(IllegalArgumentException.class, () -> ToolCallFormats.byName("json-plan").write("", two, null));
        assertThrows(IllegalArgumentException.class, () -> ToolCallFormats.byName("hermes").write("", two, "both"));
        assertThrows(IllegalArgumentException.class, () -> ToolCallFormats.byName("hermes").write("", List.of(), null));
    }
}
