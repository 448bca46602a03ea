package dev.agentswarm.policy.chat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.policy.parity.HfFixtures;
import dev.agentswarm.policy.tokenizer.HfTokenizer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Qwen3 with thinking: rendering the episode again from scratch changes what the policy already
 * saw (its earlier {@code <think>} block disappears), while extending the previous ids stays exact.
 */
class EpisodePromptsTest {

    private static int[] concat(int[] a, int[] b) {
        int[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static boolean startsWith(int[] ids, int[] prefix) {
        return ids.length >= prefix.length && Arrays.equals(Arrays.copyOf(ids, prefix.length), prefix);
    }

    @Test
    void qwen3EpisodeStaysTokenExactWhereReRenderingDoesNot() throws Exception {
        try (HfTokenizer tok = HfTokenizer.load(HfFixtures.model("qwen3"))) {
            JinjaChatTemplate template = JinjaChatTemplate.load(HfFixtures.model("qwen3"));
            List<ToolSpec> tools = List.of(new ToolSpec("calculator", "Evaluates arithmetic.", null));
            EpisodePrompts prompts = new EpisodePrompts(tok, template, tools, Map.of("enable_thinking", true));

            // Turn 1: the policy thinks, then calls a tool.
            Message user = Message.user("What is 6*7, then add 1?");
            int[] prompt1 = prompts.firstPrompt(List.of(user));
            assertTrue(tok.decode(prompt1).endsWith("<|im_start|>assistant\n"));
            JsonNode args = Json.MAPPER.createObjectNode().put("expression", "6*7");
            String said1 = "<think>\nI need the calculator.\n</think>\n\n<tool_call>\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"6*7\"}}\n</tool_call>";
            int[] seen1 = concat(prompt1, tok.encode(said1 + "<|im_end|>"));
            Message call = Message.assistant("<think>\nI need the calculator.\n</think>\n\n", List.of(new ToolCall("c1", "calculator", args)));

            // Turn 2: a tool result is appended; Qwen3 keeps the thinking after the last user message, so the render is a prefix.
            List<Message> two = List.of(user, call, Message.tool("c1", "calculator", "42"));
            EpisodePrompts.Next next2 = prompts.next(seen1, two, 2);
            assertFalse(next2.fallback());
            assertEquals("\n<|im_start|>user\n<tool_response>\n42\n</tool_response><|im_end|>\n<|im_start|>assistant\n", next2.suffix());
            assertTrue(startsWith(next2.ids(), seen1));

            // Turn 3: the policy answers; then the user asks again.
            String said2 = "<think>\nAdd one.\n</think>\n\n43";
            int[] seen2 = concat(next2.ids(), tok.encode(said2 + "<|im_end|>"));
            List<Message> three = List.of(user, call, Message.tool("c1", "calculator", "42"), Message.assistant(said2),
                    Message.user("And times 2?"));
            EpisodePrompts.Next next3 = prompts.next(seen2, three, 4);
            assertTrue(next3.fallback(), "a new user message makes Qwen3 drop the earlier thinking on re-render");
            assertEquals("\n<|im_start|>user\nAnd times 2?<|im_end|>\n<|im_start|>assistant\n", next3.suffix());
            assertTrue(startsWith(next3.ids(), seen2), "the extension keeps every id the policy saw and produced");
            assertEquals(1, prompts.fallbacks());

            int[] fromScratch = prompts.firstPrompt(three);
            assertFalse(Arrays.equals(fromScratch, next3.ids()), "re-rendering from scratch changes the episode's tokens");
            assertFalse(tok.decode(fromScratch).contains("Add one."), "Qwen3's template dropped the earlier <think> block");
            assertTrue(tok.decode(next3.ids()).contains("<think>\nAdd one.\n</think>"));
        }
    }

    @Test
    void aTurnCutOffBeforeItsStopTokenIsClosed() throws Exception {
        try (HfTokenizer tok = HfTokenizer.load(HfFixtures.model("qwen3"))) {
            EpisodePrompts prompts = new EpisodePrompts(tok, JinjaChatTemplate.load(HfFixtures.model("qwen3")), List.of(),
                    Map.of("enable_thinking", false));
            Message user = Message.user("Count to ten.");
            int[] prompt = prompts.firstPrompt(List.of(user));
            int[] seen = concat(prompt, tok.encode("1 2 3")); // max tokens reached: no <|im_end|>
            EpisodePrompts.Next next = prompts.next(seen, List.of(user, Message.assistant("1 2 3"), Message.user("Go on.")), 2);
            assertEquals("<|im_end|>\n<|im_start|>user\nGo on.<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n", next.suffix());
            assertArrayEquals(seen, Arrays.copyOf(next.ids(), seen.length));
        }
    }
}
