package dev.agentswarm.core.reward;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class AnswerVerificationTest {

    private static boolean ok(String answer, String gold) {
        return AnswerVerification.verify(answer, gold, 1, 3.0).verified();
    }

    private static AnswerVerification.Verdict verdict(String answer, String gold) {
        return AnswerVerification.verify(answer, gold, AnswerVerification.Rules.DEFAULT);
    }

    @Test
    void aCommittedAnswerPasses() {
        assertTrue(ok("Stanley", "Stanley"));
        assertTrue(ok("The seat is Stanley, North Dakota.", "Stanley"), "one extra name (the state) is context, not stuffing");
        assertTrue(ok("1,234 people", "1234"));
        assertTrue(ok("It opened in 1998.", "1998"), "a sentence's 'It' is no name");
        assertTrue(ok("In Paris.", "Paris"), "'In Paris' names Paris");
        assertTrue(ok("The answer is 2.50 dollars", "2.5"), "trailing zeros do not make another number");
        assertTrue(ok("Trick or Treat", "Trick or Treat"), "an 'or' the gold has is no hedge");
        assertTrue(ok("stanley", "Stanley"), "names compare after normalisation");
        var v = verdict("Stanley", "Stanley");
        assertEquals(1.0, v.score());
        assertEquals("ok", v.reason());
    }

    @Test
    void namesWithInitialsPrefixesAndInnerCapitalsVerifyAgainstThemselves() {
        // Gold answers of MuSiQue's dev and train samples that a capital-first name pattern split apart.
        for (String gold : List.of("U.S.", "A.P.J. Abdul Kalam", "al-Razi", "U.S. Marshal Rooster Cogburn", "McDonald's", "iPhone")) {
            assertTrue(ok(gold, gold), gold + ": " + verdict(gold, gold).reason());
        }
        assertTrue(ok("the U.S.", "U.S."));
        assertFalse(ok("Razi", "al-Razi"), "not the name the gold gives");
        assertFalse(ok("A.P.J. Abdul Kalam, Ramaswamy Venkataraman or Zail Singh", "A.P.J. Abdul Kalam"));
    }

    @Test
    void keywordStuffingGetsNoBoost() {
        var v = AnswerVerification.verify("Paris, Lyon, Marseille or Nice", "Nice", 1, 3.0);
        assertFalse(v.verified());
        assertEquals(0.0, v.score());
        assertEquals("hedges between alternatives", v.reason());
        var list = verdict("paris, lyon, marseille, nice", "nice");
        assertEquals(0.0, list.score(), "lower-case stuffing is caught by its list");
        assertEquals("lists 4 candidates where the gold has 1", list.reason());
        var names = verdict("Paris Lyon Marseille Nice", "Nice");
        assertEquals(0.0, names.score());
        assertTrue(names.reason().startsWith("names other candidates"), names.reason());
        assertEquals("other number(s) [1997, 1999] besides the answer", verdict("1997 1998 1999", "1998").reason());
        assertEquals("missing the number(s) [1998]", verdict("It was 1997.", "1998").reason());
        assertEquals("missing the name \"stanley\"", verdict("North Dakota", "Stanley").reason());
        assertEquals("10 tokens where 8 would do",
                verdict("stanley stanley stanley stanley stanley stanley stanley stanley stanley stanley", "Stanley").reason());
        assertEquals("no answer", verdict("  ", "Stanley").reason());
        assertEquals(0.0, verdict(null, "Stanley").score());
    }

    @Test
    void limitsAreParameters() {
        var strict = new AnswerVerification.Rules(0, 1.0, 2);
        assertFalse(AnswerVerification.verify("Stanley, North Dakota", "Stanley", strict).verified(), "no extra item allowed");
        assertEquals("3 tokens where 2 would do", AnswerVerification.verify("a small town Stanley", "Stanley", strict).reason());
        var lenient = new AnswerVerification.Rules(3, 3.0, 8);
        assertTrue(AnswerVerification.verify("Stanley, North Dakota, USA", "Stanley", lenient).verified());
        // a 4-token gold at ratio 3 allows 12 tokens, more than the floor of 8
        assertTrue(AnswerVerification.verify("the capital city of the county seat is the town of New York City today",
                "New York City today", lenient).verified());
        assertThrows(IllegalArgumentException.class, () -> new AnswerVerification.Rules(-1, 3.0, 8));
        assertThrows(IllegalArgumentException.class, () -> new AnswerVerification.Rules(1, 0.5, 8));
        assertThrows(IllegalArgumentException.class, () -> new AnswerVerification.Rules(1, Double.NaN, 8));
        assertThrows(IllegalArgumentException.class, () -> new AnswerVerification.Rules(1, 3.0, 0));
    }

    @Test
    void anyAliasMayVerify() {
        var rules = AnswerVerification.Rules.DEFAULT;
        assertTrue(AnswerVerification.verifyAny("NYC", List.of("New York City", "NYC"), rules).verified());
        var v = AnswerVerification.verifyAny("Boston", List.of("New York City", "NYC"), rules);
        assertEquals("missing the name \"new york city\"", v.reason(), "the first gold's reason");
        assertEquals("no gold answer", AnswerVerification.verifyAny("Boston", List.of(), rules).reason());
    }
}
