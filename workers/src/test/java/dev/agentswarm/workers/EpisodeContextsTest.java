package dev.agentswarm.workers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.policy.chat.HfChatFormat;
import dev.agentswarm.policy.chat.JinjaChatTemplate;
import dev.agentswarm.policy.tokenizer.HfTokenizer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A template that, like Qwen3's, renders an earlier assistant turn without its reasoning: an
 * episode's next prompt must still hold the ids the policy generated, reasoning included.
 */
class EpisodeContextsTest {

    private static HfChatFormat format(Path dir) throws Exception {
        Files.writeString(dir.resolve("tokenizer.json"), """
                {"version": "1.0", "truncation": null, "padding": null,
                 "added_tokens": [
                   {"id": 0, "content": "<unk>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
                   {"id": 1, "content": "<|im_start|>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
                   {"id": 2, "content": "<|im_end|>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
                   {"id": 3, "content": "<think>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": false},
                   {"id": 4, "content": "</think>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": false}],
                 "normalizer": null, "pre_tokenizer": {"type": "Whitespace"}, "post_processor": null, "decoder": null,
                 "model": {"type": "WordLevel", "unk_token": "<unk>", "vocab": {"<unk>": 0, "<|im_start|>": 1, "<|im_end|>": 2,
                   "<think>": 3, "</think>": 4, "user": 5, "assistant": 6, "tool": 7, "hmm": 8, "call": 9, "42": 10, "done": 11, "what": 12}}}
                """);
        String template = "{% for m in messages %}<|im_start|>{{ m.role }} {% if m.role == 'assistant' and not loop.last %}"
                + "{{ m.content.split('</think>')[-1] }}{% else %}{{ m.content }}{% endif %}<|im_end|>{% endfor %}"
                + "{% if add_generation_prompt %}<|im_start|>assistant{% endif %}";
        Files.writeString(dir.resolve("tokenizer_config.json"), Json.MAPPER.writeValueAsString(Map.of("eos_token", "<|im_end|>",
                "chat_template", template)));
        return new HfChatFormat(JinjaChatTemplate.load(dir), HfTokenizer.load(dir), Map.of());
    }

    private static CompletionRequest request(List<Message> messages) {
        return new CompletionRequest("ep-1", messages.size(), messages, List.of(), "auto", null);
    }

    @Test
    void theNextPromptExtendsWhatThePolicySawAndProduced(@TempDir Path dir) throws Exception {
        HfChatFormat format = format(dir);
        EpisodeContexts contexts = new EpisodeContexts(format, 8);
        List<Message> first = List.of(Message.user("what"));
        CompletionRequest r1 = request(first);
        int[] p1 = contexts.prompt(r1);
        int[] generated = {3, 8, 4, 9, 2}; // <think> hmm </think> call <|im_end|>
        contexts.answered(r1, p1, generated);
        List<Message> second = List.of(Message.user("what"), Message.assistant("<think> hmm </think> call"),
                Message.tool("c1", "calc", "42"));
        int[] p2 = contexts.prompt(request(second));
        int[] seen = concat(p1, generated);
        assertArrayEquals(seen, Arrays.copyOf(p2, seen.length), "the reasoning the policy generated stays in its context");
        assertArrayEquals(format.tokenizer().encode("<|im_start|>tool 42<|im_end|><|im_start|>assistant"),
                Arrays.copyOfRange(p2, seen.length, p2.length), "then the new messages, rendered as the template renders them");
        assertFalse(Arrays.equals(format.prompt(second, List.of()), p2), "a render from scratch drops the reasoning");
        assertEquals(1, contexts.extended());

        // A context that changed under the episode (compressed) is rendered as a whole.
        List<Message> compressed = List.of(Message.user("done"), Message.assistant("call"), Message.tool("c1", "calc", "42"));
        assertArrayEquals(format.prompt(compressed, List.of()), contexts.prompt(request(compressed)));
        assertEquals(2, contexts.rendered());
    }

    private static int[] concat(int[] a, int[] b) {
        int[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
