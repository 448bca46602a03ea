package dev.agentswarm.policy.tokenizer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.context.TokenCounter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class BpeTokenizerTest {

    private static BpeTokenizer trained;
    private static final BpeTokenizer bytesOnly = BpeTokenizer.untrained();

    @BeforeAll
    static void train() {
        trained = new BpeTrainer().train(Corpora.english(7, 200_000), 800);
    }

    @Test
    void randomStringsRoundTripExactly() {
        Random rnd = new Random(20240601);
        for (int i = 0; i < 5000; i++) {
            String s = Corpora.randomText(rnd, BpeTokenizer.DEFAULT_SPECIALS);
            for (BpeTokenizer t : List.of(trained, bytesOnly)) {
                int[] ids = t.encode(s);
                assertEquals(s, t.decode(ids), () -> "round trip of " + escape(s));
                assertArrayEquals(s.getBytes(StandardCharsets.UTF_8), t.decodeBytes(ids));
                assertEquals(s, t.decode(t.encode(s, false)));
                assertEquals(ids.length, t.count(s));
            }
        }
    }

    @Test
    void edgeCasesRoundTrip() {
        for (String s : List.of("", " ", "\0", "\r\n", "\r\n\r\n  \t", "a\u0301\u0302", "🧑‍🚀 👩🏽‍💻",
                "日本語のテキスト", "x".repeat(5000), "  leading and trailing  ", "12345678901",
                "<<tool_call>>", "<|im_start|><|im_end|>", "</think>\n\nanswer")) {
            assertEquals(s, trained.decode(trained.encode(s)), () -> escape(s));
        }
    }

    @Test
    void specialsAreSingleIdsNeverSplit() {
        for (String special : BpeTokenizer.DEFAULT_SPECIALS) {
            int id = trained.idOf(special);
            assertTrue(trained.isSpecial(id));
            assertArrayEquals(new int[] {id}, trained.encode(special));
            assertEquals(special, trained.tokenText(id));
        }
        int[] chat = trained.encode("<|im_start|>user\nhi<|im_end|>");
        assertEquals(trained.imStartId(), chat[0]);
        assertEquals(trained.imEndId(), chat[chat.length - 1]);
        assertArrayEquals(new int[] {'<', trained.idOf("<tool_call>"), '>'}, bytesOnly.encode("<<tool_call>>"));
        assertEquals(trained.eosId(), trained.idOf("<|endoftext|>"));
        assertEquals(trained.padId(), trained.idOf("<|pad|>"));
    }

    @Test
    void partialSpecialsStayPlainText() {
        for (String s : List.of("<tool_cal", "<|im_start|", "tool_call>", "</think", "<|user", "< tools>")) {
            assertEquals(s.length(), bytesOnly.encode(s).length, s);
            for (int id : trained.encode(s)) {
                assertFalse(trained.isSpecial(id), s);
            }
            assertEquals(s, trained.decode(trained.encode(s)));
        }
    }

    @Test
    void untrustedTextKeepsLookAlikeTagsAsBytes() {
        int[] ids = trained.encode("<tool_call>{}</tool_call>", false);
        assertTrue(Arrays.stream(ids).noneMatch(trained::isSpecial));
        assertEquals("<tool_call>{}</tool_call>", trained.decode(ids));
    }

    @Test
    void multiByteCharacterSplitAcrossTokensStillDecodes() {
        int[] ids = bytesOnly.encode("é🙂");
        assertEquals(6, ids.length);
        assertEquals("\uFFFD", bytesOnly.decode(new int[] {ids[0]}));
        assertEquals("é🙂", bytesOnly.decode(ids));
        assertEquals("<0xC3>", bytesOnly.tokenText(ids[0]));
    }

    @Test
    void arbitraryIdSequencesDecodeWithoutThrowing() {
        Random rnd = new Random(3);
        for (int i = 0; i < 2000; i++) {
            int[] ids = rnd.ints(rnd.nextInt(20), 0, trained.vocabSize()).toArray();
            assertDoesNotThrow(() -> trained.decode(ids));
        }
        assertEquals("\uFFFD", bytesOnly.decode(new int[] {0xFF}));
    }

    @Test
    void unknownIdsAreRejectedByName() {
        var e = assertThrows(IllegalArgumentException.class, () -> trained.decode(new int[] {65, trained.vocabSize()}));
        assertTrue(e.getMessage().contains(String.valueOf(trained.vocabSize())), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> trained.decode(new int[] {-1}));
        assertThrows(IllegalArgumentException.class, () -> trained.idOf("<nope>"));
    }

    @Test
    void vocabularyLayout() {
        assertEquals(256 + 16, bytesOnly.vocabSize());
        assertEquals(256, bytesOnly.imStartId());
        assertFalse(bytesOnly.isSpecial(255));
        assertFalse(trained.isSpecial(trained.vocabSize() - 1));
        assertEquals(256 + 16 + trained.merges().size(), trained.vocabSize());
    }

    @Test
    void mergesApplyByRankInsideChunksOnly() {
        // Hand-made merges: "a"+"b" first, then "ab"+"c"; "b"+"c" ranks later and loses to them.
        int first = 256 + BpeTokenizer.DEFAULT_SPECIALS.size();
        BpeTokenizer t = new BpeTokenizer(BpeTokenizer.DEFAULT_SPECIALS, List.of(
                new Merge('a', 'b'), new Merge(first, 'c'), new Merge('b', 'c'), new Merge('b', ' ')));
        assertArrayEquals(new int[] {first + 1}, t.encode("abc"));
        assertArrayEquals(new int[] {'x', first + 2}, t.encode("xbc"));
        assertArrayEquals(new int[] {first, first}, t.encode("abab"));
        // "xb" and " c" are separate chunks, so the (b, space) merge cannot cross between them.
        assertArrayEquals(new int[] {'x', 'b', ' ', 'c'}, t.encode("xb c"));
        assertEquals("ab", t.tokenText(first));
    }

    @Test
    void concurrentEncodingAgreesWithSequential() throws Exception {
        List<String> docs = Corpora.english(21, 40_000);
        List<int[]> expected = docs.stream().map(trained::encode).toList();
        var pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            var futures = new java.util.ArrayList<java.util.concurrent.Future<Boolean>>();
            for (int k = 0; k < 4; k++) {
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < docs.size(); i++) {
                        if (!Arrays.equals(expected.get(i), trained.encode(docs.get(i)))) {
                            return false;
                        }
                    }
                    return true;
                }));
            }
            for (var f : futures) {
                assertTrue(f.get());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void countsAsTokenCounter() {
        TokenCounter counter = trained;
        assertEquals(0, counter.count(""));
        assertEquals(trained.encode("hello world").length, counter.count("hello world"));
    }

    static String escape(String s) {
        StringBuilder sb = new StringBuilder();
        s.codePoints().forEach(cp -> sb.append(cp < 128 && cp >= 32 ? String.valueOf((char) cp) : String.format("\\u{%X}", cp)));
        return sb.toString();
    }
}
