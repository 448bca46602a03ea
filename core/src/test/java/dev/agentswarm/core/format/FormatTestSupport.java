package dev.agentswarm.core.format;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolSpec;
import java.util.List;

/** Tools and builders shared by the format tests. */
final class FormatTestSupport {

    private FormatTestSupport() {}

    static JsonNode json(String s) {
        try {
            return Json.parse(s);
        } catch (Exception e) {
            throw new IllegalArgumentException(s, e);
        }
    }

    static final ToolSpec WEATHER = new ToolSpec("get_weather", "Get the current weather in a given location",
            json("{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"},"
                    + "\"unit\":{\"type\":\"string\",\"enum\":[\"celsius\",\"fahrenheit\"]}},\"required\":[\"city\"]}"));
    static final ToolSpec SEARCH = new ToolSpec("search", "Search the web",
            json("{\"type\":\"object\",\"properties\":{\"query\":{\"type\":\"string\"}},\"required\":[\"query\"]}"));
    static final ToolSpec ROLL = new ToolSpec("roll", "Roll dice",
            json("{\"type\":\"object\",\"properties\":{\"sides\":{\"type\":\"integer\"}}}"));
    static final ToolSpec NOW = new ToolSpec("now", "Current time", json("{\"type\":\"object\",\"properties\":{}}"));
    static final ToolSpec TRANSFER = new ToolSpec("transfer", "Move money",
            json("{\"type\":\"object\",\"properties\":{\"from\":{\"type\":\"string\"},\"to\":{\"type\":\"string\"}},"
                    + "\"required\":[\"from\",\"to\"]}"));

    static final List<ToolSpec> TOOLS = List.of(WEATHER, SEARCH, ROLL, NOW, TRANSFER);

    static Completion text(String s) {
        return Completion.ofText(s, 0, 0);
    }

    static Completion cutOff(String s) {
        return new Completion(s, List.of(), null, null, FinishReason.LENGTH, 0, 0, 0);
    }

    static Completion nativeCalls(String content, ToolCall... calls) {
        return new Completion(content, List.of(calls), null, null, FinishReason.TOOL_CALLS, 0, 0, 0);
    }

    static void assertMentions(List<String> errors, String... fragments) {
        String all = String.join("\n", errors);
        for (String f : fragments) {
            assertTrue(all.contains(f), () -> "expected the errors to mention '" + f + "' but got:\n" + all);
        }
    }
}
