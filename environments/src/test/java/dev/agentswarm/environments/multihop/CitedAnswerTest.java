package dev.agentswarm.environments.multihop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class CitedAnswerTest {

    private static void parses(String answer, String text, List<String> citations) {
        CitedAnswer a = CitedAnswer.parse(answer);
        assertEquals(text, a.text(), answer);
        assertEquals(citations, a.citations(), answer);
    }

    @Test
    void citationsAreSplitFromTheAnswerInTheShapesModelsWriteThem() {
        parses("Stanley [8][1]", "Stanley", List.of("8", "1"));
        parses("Stanley. Sources: [8], [1]", "Stanley", List.of("8", "1"));
        parses("Stanley (sources: [8])", "Stanley", List.of("8"));
        parses("Stanley [ 8 ] [8]", "Stanley", List.of("8"));
        parses("yes [3.0][7.2]", "yes", List.of("3.0", "7.2"));
        parses("Fantasia Barrino [13] and Diana DeGarmo [4]", "Fantasia Barrino and Diana DeGarmo", List.of("13", "4"));
        parses("Open source", "Open source", List.of());
        parses("Open source [2]", "Open source", List.of("2"));
        parses("[a] note", "[a] note", List.of());
        parses(null, "", List.of());
    }

    @Test
    void writeRendersWhatParseReads() {
        String written = CitedAnswer.write("Lana Wood", List.of("3", "11"));
        assertEquals("Lana Wood [3][11]", written);
        assertEquals(new CitedAnswer("Lana Wood", List.of("3", "11")), CitedAnswer.parse(written));
        assertEquals("Lana Wood", CitedAnswer.write("Lana Wood", List.of()));
    }
}
