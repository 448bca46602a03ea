package dev.agentswarm.policy.tokenizer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BpeTokenizerJsonTest {

    private static final BpeTokenizer TRAINED = new BpeTrainer().train(Corpora.english(5, 60_000), 500);

    @TempDir
    Path dir;

    @Test
    void saveAndLoadGiveIdenticalEncodings() throws IOException {
        Path file = dir.resolve("sub/tokenizer.json");
        TRAINED.save(file);
        BpeTokenizer loaded = BpeTokenizer.load(file);
        assertEquals(TRAINED.vocabSize(), loaded.vocabSize());
        assertEquals(TRAINED.merges(), loaded.merges());
        assertEquals(TRAINED.specialTokens(), loaded.specialTokens());
        Random rnd = new Random(9);
        for (int i = 0; i < 500; i++) {
            String s = Corpora.randomText(rnd, BpeTokenizer.DEFAULT_SPECIALS);
            assertArrayEquals(TRAINED.encode(s), loaded.encode(s));
        }
        for (String doc : Corpora.english(6, 5_000)) {
            assertArrayEquals(TRAINED.encode(doc), loaded.encode(doc));
        }
        assertEquals(TRAINED.toJson(), loaded.toJson());
    }

    @Test
    void malformedFilesGiveClearErrors() throws IOException {
        assertLoadFails("{not json", "not valid JSON");
        assertLoadFails("[]", "JSON object");
        assertLoadFails("{\"format\":\"other\",\"version\":1}", "format");
        assertLoadFails(doc(2, "[]", "[]"), "unsupported tokenizer format version 2");
        assertLoadFails(doc(1, "[{\"id\":256,\"text\":\"<a>\"},{\"id\":257,\"text\":\"<a>\"}]", "[]"),
                "duplicate special token <a>");
        assertLoadFails(doc(1, "[{\"id\":300,\"text\":\"<a>\"}]", "[]"), "expected 256");
        assertLoadFails(doc(1, "[]", "[[97,98],[99999,97]]"), "references id 99999");
        assertLoadFails(doc(1, "[{\"id\":256,\"text\":\"<a>\"}]", "[[256,97]]"), "references id 256");
        assertLoadFails(doc(1, "[]", "[[97,98],[97,98]]"), "duplicates merge 0");
        assertLoadFails(doc(1, "[]", "[[97]]"), "merge 0 must be a pair");
        assertLoadFails("{\"format\":\"agentswarm-bpe\",\"version\":1,\"specialTokens\":[]}", "merges");
    }

    @Test
    void loadNamesTheFile() throws IOException {
        Path file = dir.resolve("broken.json");
        Files.writeString(file, doc(7, "[]", "[]"));
        var e = assertThrows(IllegalArgumentException.class, () -> BpeTokenizer.load(file));
        assertTrue(e.getMessage().contains("broken.json") && e.getMessage().contains("version 7"), e.getMessage());
    }

    @Test
    void handWrittenFileLoads() {
        BpeTokenizer t = BpeTokenizer.fromJson(doc(1, "[{\"id\":256,\"text\":\"<eot>\"}]", "[[104,105]]"));
        assertArrayEquals(new int[] {257, 256}, t.encode("hi<eot>"));
        assertEquals(List.of("<eot>"), t.specialTokens());
    }

    private static String doc(int version, String specials, String merges) {
        return "{\"format\":\"agentswarm-bpe\",\"version\":" + version + ",\"specialTokens\":" + specials
                + ",\"merges\":" + merges + "}";
    }

    private static void assertLoadFails(String json, String expected) {
        var e = assertThrows(IllegalArgumentException.class, () -> BpeTokenizer.fromJson(json), json);
        assertTrue(e.getMessage().contains(expected), () -> "message '" + e.getMessage() + "' lacks '" + expected + "'");
    }
}
