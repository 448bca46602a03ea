package dev.agentswarm.policy.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.policy.parity.HfFixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which template a model folder uses, what it is given, and our messages in Hugging Face's form. */
class JinjaChatTemplateTest {

    private static final String SHOW = "{{ bos_token }}|{{ eos_token }}|{{ tools is none }}|{{ add_generation_prompt }}|{{ extra }}|{{ messages[0].content }}";

    @Test
    void tokenizerConfigTemplateSeesSpecialTokensToolsAndKwargs(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("tokenizer_config.json"), Json.MAPPER.writeValueAsString(Map.of(
                "bos_token", "<s>", "eos_token", Map.of("content", "</s>"), "chat_template", SHOW)));
        JinjaChatTemplate t = JinjaChatTemplate.load(dir);
        JsonNode msgs = HfMessages.messages(List.of(Message.user("hi")));
        assertEquals("<s>|</s>|True|True|42|hi", t.render(msgs, null, true, Map.of("extra", 42)));
    }

    @Test
    void chatTemplateJinjaFileWinsAndNamedTemplatesPickToolUse(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("tokenizer_config.json"), Json.MAPPER.writeValueAsString(Map.of("chat_template", List.of(
                Map.of("name", "default", "template", "default"), Map.of("name", "tool_use", "template", "tools: {{ tools|length }}")))));
        JinjaChatTemplate named = JinjaChatTemplate.load(dir);
        JsonNode msgs = HfMessages.messages(List.of(Message.user("hi")));
        assertEquals("default", named.render(msgs, null, false, Map.of()));
        JsonNode tools = HfMessages.tools(List.of(new ToolSpec("f", "d", null)));
        assertEquals("tools: 1", named.render(msgs, tools, false, Map.of()));

        Files.writeString(dir.resolve("chat_template.jinja"), "from the file\n");
        assertEquals("from the file", JinjaChatTemplate.load(dir).render(msgs, null, false, Map.of()));
    }

    @Test
    void aFolderWithoutTemplateIsNamed(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("tokenizer_config.json"), "{}");
        IOException e = assertThrows(IOException.class, () -> JinjaChatTemplate.load(dir));
        assertTrue(e.getMessage().contains("no chat template"), e.getMessage());
    }

    @Test
    void messagesBecomeHuggingFaceDicts() {
        JsonNode args = Json.MAPPER.createObjectNode().put("q", "x");
        JsonNode m = HfMessages.messages(List.of(
                Message.assistant("", List.of(new ToolCall("call_1", "search", args))),
                Message.tool("call_1", "search", "result")));
        assertEquals("{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"type\":\"function\",\"id\":\"call_1\","
                + "\"function\":{\"name\":\"search\",\"arguments\":{\"q\":\"x\"}}}]}", m.get(0).toString());
        assertEquals("{\"role\":\"tool\",\"content\":\"result\",\"tool_call_id\":\"call_1\",\"name\":\"search\"}", m.get(1).toString());
    }

    @Test
    void qwen3RendersOurToolCallsAndResults() throws Exception {
        JinjaChatTemplate t = JinjaChatTemplate.load(HfFixtures.model("qwen3"));
        JsonNode args = Json.MAPPER.createObjectNode().put("expression", "6*7");
        List<Message> conversation = List.of(
                Message.user("What is 6*7?"),
                Message.assistant("", List.of(new ToolCall("c1", "calculator", args))),
                Message.tool("c1", "calculator", "42"));
        String text = t.render(HfMessages.messages(conversation),
                HfMessages.tools(List.of(new ToolSpec("calculator", "Evaluates arithmetic.", null))), true, Map.of("enable_thinking", false));
        assertTrue(text.contains("<tools>\n{\"type\": \"function\", \"function\": {\"name\": \"calculator\", \"description\": \"Evaluates arithmetic.\"}}\n</tools>"), text);
        assertTrue(text.contains("<|im_start|>assistant\n<tool_call>\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"6*7\"}}\n</tool_call><|im_end|>"), text);
        assertTrue(text.contains("<|im_start|>user\n<tool_response>\n42\n</tool_response><|im_end|>"), text);
        assertTrue(text.endsWith("<|im_start|>assistant\n<think>\n\n</think>\n\n"), text);
    }
}
