package dev.agentswarm.core.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.agentswarm.core.json.Json;
import java.util.List;
import org.junit.jupiter.api.Test;

class ToolCallSummaryTest {

    @Test
    void callsReadAsNameAndArgumentsAndAreCut() throws Exception {
        ToolCall calc = new ToolCall("1", "calculator", Json.parse("{\"expression\": \"2 + 3\"}"));
        ToolCall search = new ToolCall("2", "search", Json.parse("{\"query\": \"x\", \"k\": 5, \"filters\": {\"a\": 1}, \"ids\": [1, 2]}"));
        assertEquals("calculator(expression: \"2 + 3\")", ToolCallSummary.of(List.of(calc), 160));
        assertEquals("calculator(expression: \"2 + 3\"), search(query: \"x\", k: 5, filters: {…}, ids: […])",
                ToolCallSummary.of(List.of(calc, search), 160));
        assertEquals("calculator(expr…", ToolCallSummary.of(List.of(calc), 16));
        assertEquals("finish()", ToolCallSummary.of(List.of(new ToolCall("3", "finish", null)), 160));
    }
}
