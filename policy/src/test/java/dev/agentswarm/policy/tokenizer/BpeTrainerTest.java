package dev.agentswarm.policy.tokenizer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class BpeTrainerTest {

    private static final List<String> CORPUS = Corpora.english(11, 300_000);

    @Test
    void sameCorpusGivesSameTokenizer() {
        BpeTokenizer a = new BpeTrainer().train(CORPUS, 600);
        BpeTokenizer b = new BpeTrainer().train(List.copyOf(CORPUS), 600);
        assertEquals(a.merges(), b.merges());
        assertEquals(a.toJson(), b.toJson());
        assertEquals(600, a.vocabSize());
    }

    @Test
    void trainingCompressesItsCorpus() {
        BpeTokenizer t = new BpeTrainer().train(CORPUS, 1024);
        long bytes = 0;
        long tokens = 0;
        for (String doc : CORPUS) {
            bytes += doc.getBytes(StandardCharsets.UTF_8).length;
            int[] ids = t.encode(doc);
            tokens += ids.length;
            assertEquals(doc, t.decode(ids));
        }
        double ratio = (double) tokens / bytes;
        // A few hundred frequent words fit in 1024 ids, so most words become one or two tokens.
        assertTrue(ratio < 0.30, "tokens per byte " + ratio);
    }

    @Test
    void firstMergeIsTheMostFrequentPair() {
        BpeTokenizer t = new BpeTrainer().train(List.of("aaaa bb bb bb"), 300);
        // Chunks: "aaaa" once (pairs aa x3), " bb" three times (" b" x3, "bb" x3): tie at 3 goes to
        // the lowest left id, the space.
        assertEquals(new Merge(' ', 'b'), t.merges().get(0));
    }

    @Test
    void vocabularyOfBytesAndSpecialsLearnsNothing() {
        BpeTokenizer t = new BpeTrainer().train(CORPUS.subList(0, 20), 256 + 16);
        assertEquals(0, t.merges().size());
        assertArrayEquals("hi".chars().toArray(), t.encode("hi"));
        var e = assertThrows(IllegalArgumentException.class, () -> new BpeTrainer().train(CORPUS, 100));
        assertTrue(e.getMessage().contains("272"), e.getMessage());
    }

    @Test
    void specialsInTheCorpusAreNotLearnedAsMerges() {
        BpeTokenizer t = new BpeTrainer().train(List.of("<think>".repeat(50)), 400);
        assertEquals(0, t.merges().size());
    }

    @Test
    void numbersAreSpelledDigitByDigitUnlessGroupsAreAskedFor() {
        List<String> corpus = List.of("12 + 34 = 46, 123 * 456 = 56088, 46 and 46 and 12 and 34 and 56088 again 56088");
        BpeTokenizer single = new BpeTrainer().train(corpus, 400);
        BpeTokenizer grouped = new BpeTrainer(BpeTokenizer.DEFAULT_SPECIALS, 3).train(corpus, 400);
        assertEquals(5, single.encode("56088").length, "one id per digit, as Qwen's tokenizer");
        assertTrue(grouped.encode("56088").length <= 2, "groups of three merge");
        assertEquals("56088 + 12", single.decode(single.encode("56088 + 12")));
        // The setting travels with the file; a file without it is read as the groups of three it was trained with.
        assertEquals(1, BpeTokenizer.fromJson(single.toJson()).digitGroup());
        assertEquals(3, BpeTokenizer.fromJson(grouped.toJson()).digitGroup());
        String legacy = grouped.toJson().replace("\"digitGroup\":3,", "");
        assertArrayEquals(grouped.encode("56088"), BpeTokenizer.fromJson(legacy).encode("56088"));
        assertThrows(IllegalArgumentException.class, () -> BpeTokenizer.fromJson(single.toJson().replace("\"digitGroup\":1", "\"digitGroup\":0")));
    }
}
