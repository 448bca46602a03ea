package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** swarm tokenize: JSON lines in, ids (and rendered chat text) out, bad lines named without stopping the rest. */
class TokenizeCliTest {

    /** A tiny model folder: a word-level tokenizer with two specials and a ChatML-like template. */
    private static Path model(Path dir) throws Exception {
        Path m = Files.createDirectories(dir.resolve("model"));
        Files.writeString(m.resolve("tokenizer.json"), """
                {"version": "1.0", "truncation": null, "padding": null,
                 "added_tokens": [
                   {"id": 0, "content": "<unk>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
                   {"id": 1, "content": "<|im_start|>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
                   {"id": 2, "content": "<|im_end|>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}],
                 "normalizer": null, "pre_tokenizer": {"type": "Whitespace"}, "post_processor": null, "decoder": null,
                 "model": {"type": "WordLevel", "unk_token": "<unk>",
                   "vocab": {"<unk>": 0, "<|im_start|>": 1, "<|im_end|>": 2, "user": 3, "assistant": 4, "hello": 5, "world": 6, "think": 7}}}
                """);
        Files.writeString(m.resolve("tokenizer_config.json"), Json.MAPPER.writeValueAsString(java.util.Map.of(
                "eos_token", "<|im_end|>",
                "chat_template", "{% for m in messages %}<|im_start|>{{ m.role }} {{ m.content }}<|im_end|>{% endfor %}"
                        + "{% if add_generation_prompt %}<|im_start|>assistant{% if enable_thinking %} think{% endif %}{% endif %}")));
        return m;
    }

    @Test
    void textAndMessagesLinesGiveIdsAndRenderedText(@TempDir Path dir) throws Exception {
        Path input = dir.resolve("in.jsonl");
        Files.write(input, List.of(
                "{\"text\": \"hello world\"}",
                "",
                "{\"messages\": [{\"role\": \"user\", \"content\": \"hello\"}], \"add_generation_prompt\": true, \"enable_thinking\": true}",
                "{\"messages\": [{\"role\": \"user\", \"content\": \"hello\"}]}"));
        CliTest.Result r = CliTest.swarm("tokenize", "--model", model(dir).toString(), "--input", input.toString());
        assertEquals(0, r.exit(), r.err());
        String[] lines = r.out().strip().split("\n");
        assertEquals(3, lines.length, r.out());
        assertEquals("{\"ids\":[5,6]}", lines[0]);
        JsonNode chat = Json.parse(lines[1]);
        assertEquals("<|im_start|>user hello<|im_end|><|im_start|>assistant think", chat.get("text").asText());
        assertEquals("[1,3,5,2,1,4,7]", chat.get("ids").toString());
        assertEquals("[1,3,5,2]", Json.parse(lines[2]).get("ids").toString());
    }

    @Test
    void badLinesAreNamedOnStderrAndTheRestStillRun(@TempDir Path dir) throws Exception {
        InputStream oldIn = System.in;
        String stdin = "{\"text\": \"hello\"}\nnot json\n{\"neither\": 1}\n{\"messages\": \"x\"}\n{\"text\": \"world\"}\n";
        try {
            System.setIn(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
            CliTest.Result r = CliTest.swarm("tokenize", "--model", model(dir).toString());
            assertEquals(1, r.exit(), r.out() + r.err());
            String[] lines = r.out().strip().split("\n");
            assertEquals(5, lines.length, "one answer per line: " + r.out());
            assertEquals("{\"ids\":[5]}", lines[0]);
            assertEquals(2, Json.parse(lines[1]).get("line").asInt());
            assertTrue(Json.parse(lines[2]).get("error").asText().contains("\"text\""), lines[2]);
            assertEquals("{\"ids\":[6]}", lines[4]);
            assertTrue(r.err().contains("line 2: not a JSON object"), r.err());
            assertTrue(r.err().contains("line 3: expected \"text\""), r.err());
            assertTrue(r.err().contains("line 4: "), r.err());
            assertTrue(r.err().contains("3 line(s) failed"), r.err());
        } finally {
            System.setIn(oldIn);
        }
    }

    @Test
    void aMissingModelFolderIsAnError(@TempDir Path dir) {
        CliTest.Result r = CliTest.swarm("tokenize", "--model", dir.resolve("nope").toString());
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("is not a folder"), r.err());
    }
}
