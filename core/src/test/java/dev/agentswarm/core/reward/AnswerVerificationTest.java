package dev.agentswarm.core.reward;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class AnswerVerificationTest {

    private static boolean ok(String answer, String gold) {
        return AnswerVerification.verify(answer, gold, 1, 3.0).verified();
    }

    @Test
    void aCommittedAnswerPasses() {
        assertTrue(ok("Stanley", "Stanley"));
        assertTrue(ok("The seat is Stanley, North Dakota.", "Stanley"), "one extra name (the state) is context, not stuffing");
        assertTrue(ok("1,234 people", "1234"));
        assertTrue(ok("It opened in 1998.", "1998"));
    }

    @Test
    void keywordStuffingIsRefused() {
        var v = AnswerVerification.verify("Paris, Lyon, Marseille or Nice", "Nice", 1, 3.0);
        assertFalse(v.verified());
        assertTrue(v.reason().contains("candidates"), v.reason());
        assertFalse(ok("1997 or 1998 or 1999", "1998"), "other numbers besides the answer");
        assertFalse(ok("It was 1997.", "1998"), "the wrong number");
        assertFalse(ok("North Dakota", "Stanley"), "the gold's name is missing");
        assertFalse(ok("stanley stanley stanley stanley stanley stanley stanley stanley stanley stanley", "Stanley"),
                "far longer than the gold");
        assertFalse(ok("", "Stanley"));
    }
}
