package dev.agentswarm.policy.tokenizer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real tokenizer.json loads offline and tokenizes as its vocabulary says. */
class HuggingFaceTokenizerFileTest {

    private static Path resource(String name) throws Exception {
        return Path.of(HuggingFaceTokenizerFileTest.class.getClassLoader().getResource(name).toURI());
    }

    @Test
    void wordLevelTokenizerEncodesCountsAndDecodes() throws Exception {
        try (HuggingFaceTokenizerFile t = HuggingFaceTokenizerFile.load(resource("tokenizer/wordlevel-tokenizer.json"))) {
            assertArrayEquals(new int[] {2, 3, 4, 5, 6, 7}, t.encode("what is 6 * 7 ?"));
            assertArrayEquals(new int[] {1, 8, 9, 0}, t.encode("<tool_call> the answer banana"), "added token and [UNK]");
            assertEquals(3, t.count("the answer 42"));
            assertTrue(t.decode(new int[] {8, 9, 10}).contains("answer"));
        }
    }

    @Test
    void missingOrMalformedFilesAreClearErrors(@TempDir Path dir) throws Exception {
        IOException missing = assertThrows(IOException.class, () -> HuggingFaceTokenizerFile.load(dir.resolve("nope.json")));
        assertTrue(missing.getMessage().contains("nope.json"));
        Path bad = dir.resolve("bad.json");
        Files.writeString(bad, "{\"model\": 42}");
        IOException malformed = assertThrows(IOException.class, () -> HuggingFaceTokenizerFile.load(bad));
        assertTrue(malformed.getMessage().contains("bad.json"), malformed.getMessage());
    }
}
