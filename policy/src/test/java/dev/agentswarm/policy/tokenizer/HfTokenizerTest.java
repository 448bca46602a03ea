package dev.agentswarm.policy.tokenizer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.policy.parity.HfFixtures;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real model folder's tokenizer: ids, specials, stop ids and the bytes behind each token. */
class HfTokenizerTest {

    @Test
    void smallFolderLoadsAndNamesItsTokens(@TempDir Path dir) throws Exception {
        Files.copy(Path.of(getClass().getClassLoader().getResource("tokenizer/wordlevel-tokenizer.json").toURI()),
                dir.resolve("tokenizer.json"));
        Files.writeString(dir.resolve("tokenizer_config.json"), "{\"eos_token\": {\"content\": \"<tool_call>\"}}");
        try (HfTokenizer t = HfTokenizer.load(dir)) {
            assertEquals("true", System.getProperty("ai.djl.offline"));
            int[] ids = t.encode("what is 6 * 7 ?");
            assertArrayEquals(new int[] {2, 3, 4, 5, 6, 7}, ids);
            assertEquals(t.id("<tool_call>").getAsInt(), t.eosId());
            assertEquals(t.eosId(), t.padId(), "no pad_token: pad with eos");
            assertArrayEquals(new int[] {t.eosId()}, t.stopIds());
            assertEquals("what", t.token(2));
            assertArrayEquals("what".getBytes(StandardCharsets.UTF_8), t.tokenBytes(2));
        }
    }

    @Test
    void missingFilesAreNamed(@TempDir Path dir) throws Exception {
        IOException none = assertThrows(IOException.class, () -> HfTokenizer.load(dir));
        assertTrue(none.getMessage().contains("no tokenizer.json"), none.getMessage());
        Files.writeString(dir.resolve("tokenizer.json"), "{}");
        IOException noConfig = assertThrows(IOException.class, () -> HfTokenizer.load(dir));
        assertTrue(noConfig.getMessage().contains("tokenizer_config.json"), noConfig.getMessage());
        Files.writeString(dir.resolve("tokenizer_config.json"), "{\"eos_token\": \"</s>\"}");
        Files.writeString(dir.resolve("tokenizer.json"), "{\"model\": 42}");
        IOException malformed = assertThrows(IOException.class, () -> HfTokenizer.load(dir));
        assertTrue(malformed.getMessage().contains("tokenizer.json"), malformed.getMessage());
    }

    @Test
    void qwen3KnowsItsSpecialsAndStops(@TempDir Path dir) throws Exception {
        Path model = HfFixtures.model("qwen3");
        Files.createSymbolicLink(dir.resolve("tokenizer.json"), model.resolve("tokenizer.json"));
        Files.createSymbolicLink(dir.resolve("tokenizer_config.json"), model.resolve("tokenizer_config.json"));
        Files.writeString(dir.resolve("generation_config.json"), "{\"eos_token_id\": [151645, 151643], \"pad_token_id\": 151643}");
        try (HfTokenizer t = HfTokenizer.load(dir)) {
            int imEnd = t.id("<|im_end|>").getAsInt();
            int endOfText = t.id("<|endoftext|>").getAsInt();
            assertEquals(imEnd, t.eosId());
            assertArrayEquals(new int[] {imEnd, endOfText}, t.stopIds());
            assertEquals(endOfText, t.padId());
            assertTrue(t.isSpecial(t.id("<|im_start|>").getAsInt()));
            int think = t.id("<think>").getAsInt();
            assertFalse(t.isSpecial(think), "<think> is an added token, not a special one");
            assertEquals("<think>", t.token(think));
            assertEquals(151669, t.vocabSize());
            assertArrayEquals(new int[] {t.id("<|im_start|>").getAsInt()}, t.encode("<|im_start|>"), "specials in text match");
            assertEquals("Hello world", t.decode(t.encode("Hello world")));
            assertEquals("hi", t.decode(new int[] {t.id("hi").getAsInt(), imEnd}, true), "skipping specials");

            String many = "word ".repeat(2999) + "word";
            assertEquals(3000, t.encode(many).length, "no truncation at 512 tokens");

            String text = "naïve 🤖 数学 \t\n  x";
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            for (int id : t.encode(text)) bytes.writeBytes(t.tokenBytes(id));
            assertArrayEquals(text.getBytes(StandardCharsets.UTF_8), bytes.toByteArray());
        }
    }

    @Test
    void gemmaBytesComeFromPiecesAndByteFallback() throws Exception {
        try (HfTokenizer t = HfTokenizer.load(HfFixtures.model("gemma3"))) {
            assertArrayEquals(" ".getBytes(StandardCharsets.UTF_8), t.tokenBytes(t.id("▁").getAsInt()));
            assertArrayEquals(new byte[] {(byte) 0xE2}, t.tokenBytes(t.id("<0xE2>").getAsInt()));
            assertEquals(t.id("<end_of_turn>").getAsInt(), t.eosId());
            assertEquals(t.id("<pad>").getAsInt(), t.padId());
            String text = "Gemma: 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 and spaces   end";
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            for (int id : t.encode(text)) bytes.writeBytes(t.tokenBytes(id));
            assertArrayEquals(text.getBytes(StandardCharsets.UTF_8), bytes.toByteArray());
        }
    }
}
