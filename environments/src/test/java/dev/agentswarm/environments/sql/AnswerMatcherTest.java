package dev.agentswarm.environments.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every expectation here is what AgentBench's own {@code result_processor.py} (THUDM/AgentBench @
 * 578c5e9f) answered for the same inputs, run under Python 3.
 */
class AnswerMatcherTest {

    private record Case(Object answer, Object gold, String type, boolean expected, List<String> cleaned) {}

    private static Case c(Object answer, Object gold, String type, boolean expected, String... cleaned) {
        return new Case(answer, gold, type, expected, cleaned.length == 0 ? null : List.of(cleaned));
    }

    private static final List<Case> CASES = List.of(
            c(List.of("1,234"), List.of("1234.004"), "counting", true, "1234"),
            c(List.of("45%"), List.of("45"), "other", true, "45"),
            c(List.of("None"), List.of("0"), "other", true, "0"),
            c(List.of("none"), List.of("null"), "other", true, "0"),
            c(List.of("b", "a"), List.of("a", "b"), "other", true, "b", "a"),
            c(List.of("2.001", "1"), List.of("1", "2"), "other", true, "2.001", "1"),
            c(List.of("1.02"), List.of("1"), "other", false, "1.02"),
            c(List.of("1.01"), List.of("1"), "other", false, "1.01"),
            c(List.of("a"), List.of("a", "b"), "other", false, "a"),
            c(List.of(), List.of(), "other", true),
            c(List.of("1", "1"), List.of("1", "2"), "other", false, "1", "1"),
            c(List.of("'Giza'"), List.of("Giza"), "other", true, "Giza"),
            c("[('Giza',)]", List.of("Giza"), "other", true, "Giza"),
            c("[('a',), ('b',)]", List.of("b", "a"), "other", true, "a", "b"),
            c("['a', 'b']", List.of("a", "b"), "other", true, "a", "b"),
            c("[a, b]", List.of("a", "b"), "other", true, "a", "b"),
            c("[\"x, y\", z]", List.of("x, y", "z"), "other", true, "x y", "z"),
            c("42", List.of("42.0"), "other", true, "42"),
            c("The answer is 42", List.of("42"), "other", false, "The answer is 42"),
            c("[1, 2.50, None]", List.of("1", "2.5", "0"), "other", true, "1", "2.5", "0"),
            c("e63818ea2e715870f6b76d69d94d6143", "[('e63818ea2e715870f6b76d69d94d6143',)]", "INSERT", true,
                    "e63818ea2e715870f6b76d69d94d6143"),
            c("None", "[(None,)]", "UPDATE", true, "0"),
            c(List.of("1e3"), List.of("1000"), "other", true, "1e3"),
            c(List.of("1_000"), List.of("1000"), "other", true, "1_000"),
            c(List.of("inf"), List.of("0"), "other", true, "0"),
            c(List.of("+inf"), List.of("inf"), "other", false, "+inf"),
            c(List.of("nan"), List.of("nan"), "other", true, "0"),
            c(List.of(" 7 "), List.of("7"), "other", true, "7"),
            c(List.of("1,000%"), List.of("1,000"), "other", false, "1,000"),
            c(List.of("[1,2]"), List.of("[1,2]"), "other", true, "[1,2]"),
            c(List.of("\"House of Cards\""), List.of("House of Cards"), "other", true, "House of Cards"),
            c(List.of("0.005"), List.of("none"), "other", true, "0.005"),
            c(List.of("a", "a"), List.of("a"), "other", true, "a", "a"),
            c(List.of("3", "1", "2"), List.of("1", "2", "3.009"), "other", true, "3", "1", "2"),
            c("[(1, 2)]", List.of(), "other", true),
            c("[('x',)", List.of("x"), "other", false, "[('x',)"),
            c("[(5,)]]", List.of("5"), "other", true, "5"));

    @Test
    void agreesWithAgentBenchsResultProcessorCaseByCase() {
        for (Case k : CASES) {
            String what = k.answer() + " vs " + k.gold() + " (" + k.type() + ")";
            assertEquals(k.expected(), AnswerMatcher.matches(k.answer(), k.gold(), k.type()), what);
            List<String> cleaned = AnswerMatcher.clean(k.answer());
            assertEquals(k.cleaned() == null ? List.of() : k.cleaned(), cleaned, "cleaned " + what);
        }
    }

    @Test
    void expressionsAreNotEvaluatedAndAMissingAnswerIsZero() {
        // Python evaluates "[1][0]" to 1, not a list, and then fails the comparison; here it is no literal and fails too.
        assertEquals(false, AnswerMatcher.matches("[1][0]", List.of("1"), "other"));
        assertEquals(true, AnswerMatcher.matches(null, List.of("none"), "other"), "None cleans to [\"0\"]");
        assertEquals(List.of("0"), AnswerMatcher.clean(null));
    }

    @Test
    void pythonFloatsParseAsPythonDoes() {
        assertEquals(1000.0, PythonValues.parseFloat(" 1_000 "));
        assertEquals(Double.POSITIVE_INFINITY, PythonValues.parseFloat("Infinity"));
        assertNull(PythonValues.parseFloat("1,000"));
        assertNull(PythonValues.parseFloat("1__0"));
        assertNull(PythonValues.parseFloat("0x10"));
        assertEquals(5.0, PythonValues.parseFloat("5."));
    }

    @Test
    void literalsEvaluateAsPythonDoesAndOthersAreRefused() {
        assertEquals(List.of("a", "it's"), PythonValues.evalLiteral("['a', \"it's\"]"));
        assertEquals("[1, 'x', None, (2,), ()]", PythonValues.repr(PythonValues.evalLiteral("[1, 'x', None, (2,), ()]")));
        assertEquals("ab\n", PythonValues.evalLiteral("'a' \"b\\n\""));
        assertEquals("a\\n", PythonValues.evalLiteral("r'a\\n'"));
        assertEquals(List.of(new java.math.BigInteger("-16")), PythonValues.evalLiteral("[-0x10]"));
        assertThrows(IllegalArgumentException.class, () -> PythonValues.evalLiteral("[abc]"));
        assertThrows(IllegalArgumentException.class, () -> PythonValues.evalLiteral("[1][0]"));
        assertThrows(IllegalArgumentException.class, () -> PythonValues.evalLiteral("[__import__('os')]"));
    }
}
