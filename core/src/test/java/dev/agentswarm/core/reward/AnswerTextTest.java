package dev.agentswarm.core.reward;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class AnswerTextTest {

    @Test
    void squadNormalisationStepByStep() {
        // lower → "the eiffel-tower, a landmark!" → no punctuation → "the eiffeltower a landmark"
        // → articles spaced → "  eiffeltower   landmark" → collapsed
        assertEquals("eiffeltower landmark", AnswerText.normalize("The Eiffel-Tower, a LANDMARK!"));
        assertEquals("anne frank", AnswerText.normalize("Anne Frank"), "'an' inside a word stays");
        assertEquals("anthe", AnswerText.normalize("an_the"), "'_' is punctuation: removed first, so no boundary is left");
        assertEquals("’s", AnswerText.normalize("The’s"), "the curly apostrophe is not in string.punctuation");
        assertEquals("", AnswerText.normalize(null));
    }

    @Test
    void punctuationOnlyAndEmptyAnswersHaveNoTokens() {
        assertEquals("", AnswerText.normalize("?!..."));
        assertEquals(List.of(), AnswerText.tokens("?!..."));
        assertEquals(List.of(), AnswerText.tokens("  the a an "));
        assertEquals(List.of(), AnswerText.tokens(""));
        assertEquals(List.of("1234", "people"), AnswerText.tokens("1,234 people"));
    }

    @Test
    void wordBoundariesAndWhitespaceAreThoseOfPython() {
        assertEquals("éan", AnswerText.normalize("éan"), "é is a word character: no boundary before 'an'");
        assertEquals("cat", AnswerText.normalize("the\u00a0cat"), "a no-break space separates, as str.split() does");
        assertEquals("b c", AnswerText.normalize("b\u2003c\u3000"));
        assertEquals(List.of("x", "y", "z"), AnswerText.tokens("x\u0085y\u001cz"), "NEL and the file separator split too");
        assertEquals("\u200bb", AnswerText.normalize("a\u200bb"),
                "a zero-width space is neither whitespace nor a word character: the 'a' before it is an article");
        // "á" written as a + combining acute: the accent is not \w in Python, so the "a" before it is an article
        assertEquals("\u0301 b", AnswerText.normalize("a\u0301 b"));
        assertEquals("οδος", AnswerText.normalize("ΟΔΟΣ"), "final sigma lower-cases as in Python");
    }
}
