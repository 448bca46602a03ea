package dev.agentswarm.environments.multihop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class PassageIndexTest {

    private static final List<Passage> PAGES = List.of(
            Passage.of("0", "Mountrail County", "Mountrail County is a county in North Dakota. Its county seat is Stanley."),
            Passage.of("1", "Van Hook Township", "Van Hook Township is a township in Mountrail County, North Dakota."),
            Passage.of("2", "Stanley, North Dakota", "Stanley is a city in Mountrail County. The courthouse directs county affairs."),
            new Passage("3", "Ed Wood (film)", List.of("Ed Wood is a 1994 film.", " It was directed by Tim Burton.")));

    @Test
    void bm25RanksTheTitleAndRareWordsFirstAndStemsEnglish() {
        try (PassageIndex index = new PassageIndex(PAGES, false)) {
            assertEquals("1", index.search("Van Hook Township", 1).get(0).key());
            assertEquals("0", index.search("seat of Mountrail County", 1).get(0).key(), "the title match counts double");
            assertEquals("3", index.search("films directing", 1).get(0).key(), "stems: films ~ film, directing ~ directed");
            assertEquals("3", index.search("Ed Wood's director", 1).get(0).key(), "possessive dropped");
            assertEquals(List.of("mountrail", "counti", "seat"), index.terms("the Mountrail County's seat, the"), "stop words, possessive, stems");
            assertEquals(List.of(), index.search("the of and", 3));
            assertEquals(3, index.search("Mountrail County North Dakota", 3).size());
        }
    }

    @Test
    void resultsCarryTheKeysAnAnswerCites() {
        try (PassageIndex paragraphs = new PassageIndex(PAGES, false); PassageIndex sentences = new PassageIndex(PAGES, true)) {
            assertEquals("[3] Ed Wood (film)\nEd Wood is a 1994 film. It was directed by Tim Burton.", paragraphs.render(List.of(PAGES.get(3))));
            assertEquals("[3] Ed Wood (film)\n[3.0] Ed Wood is a 1994 film. [3.1] It was directed by Tim Burton.",
                    sentences.render(List.of(PAGES.get(3))));
        }
    }

    @Test
    void aQueryAsLongAsAPageStaysWithinLucenesClauseLimit() {
        String page = String.join(" ", java.util.stream.IntStream.range(0, 2000).mapToObj(i -> "word" + i).toList());
        try (PassageIndex index = new PassageIndex(List.of(Passage.of("0", "long", page), PAGES.get(0)), false)) {
            assertEquals(PassageIndex.MAX_QUERY_TERMS, index.terms(page).size());
            assertEquals("0", index.search(page, 1).get(0).key());
        }
        assertThrows(IllegalArgumentException.class, () -> new PassageIndex(List.of(), false));
    }
}
