package dev.agentswarm.core.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolSpec;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * MCP tools are offered as {@code server.tool} (server-everything's tools have hyphens too): every
 * tool-call format reads such names back as they are, and lists them in its prompt as they are.
 */
class McpToolNamesTest {

    private static final List<ToolSpec> TOOLS = List.of(
            new ToolSpec("everything.get-sum", "Returns the sum of two numbers", Json.object().put("type", "object")),
            new ToolSpec("fs.read_text_file", "Reads a file", Json.object().put("type", "object")));

    private static ToolCall only(ToolCallFormat f, Completion c) {
        ParsedCompletion p = f.parse(c, TOOLS);
        assertEquals(List.of(), p.errors(), f.name());
        assertEquals(1, p.toolCalls().size(), f.name());
        return p.toolCalls().get(0);
    }

    @Test
    void hermesReActAndOpenAiReadDottedAndHyphenatedNames() throws Exception {
        ToolCall hermes = only(new HermesFormat(), Completion.ofText(
                "<tool_call>\n{\"name\": \"everything.get-sum\", \"arguments\": {\"a\": 1, \"b\": 2}}\n</tool_call>", 0, 0));
        assertEquals("everything.get-sum", hermes.name());
        ToolCall react = only(new ReActFormat(), Completion.ofText(
                "Thought: add them\nAction: everything.get-sum\nAction Input: {\"a\": 1, \"b\": 2}", 0, 0));
        assertEquals("everything.get-sum", react.name());
        ToolCall openai = only(new OpenAiToolCallsFormat(), new Completion("", List.of(new ToolCall("c1", "fs.read_text_file",
                Json.parse("{\"path\": \"/a\"}"))), null, null, null, 0, 0, 0));
        assertEquals("fs.read_text_file", openai.name());
        assertTrue(new HermesFormat().toolsPrompt(TOOLS).contains("\"name\": \"everything.get-sum\""));
        assertTrue(new ReActFormat().toolsPrompt(TOOLS).contains("everything.get-sum"));
    }
}
