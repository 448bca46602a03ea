package dev.agentswarm.core.reward;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AnswerMetricsTest {

    @Test
    void normalisationFollowsTheSquadRules() {
        assertEquals("eiffeltower", AnswerMetrics.normalize("  The Eiffel-Tower!  "), "a hyphen is punctuation: removed, not spaced");
        assertEquals("united states", AnswerMetrics.normalize("the United States."));
        assertEquals("", AnswerMetrics.normalize("?!."));
        assertEquals("anne frank", AnswerMetrics.normalize("Anne Frank"), "'an' inside a word stays");
        assertTrue(AnswerMetrics.exactMatch("The Stanley", "stanley"));
    }

    @Test
    void tokenF1CountsTheMultisetOverlap() {
        // prediction "the city of stanley stanley" → [city, of, stanley, stanley]; gold "stanley" → [stanley]:
        // common 1, P = 1/4, R = 1, F1 = 2·0.25/1.25 = 0.4
        AnswerMetrics.Prf s = AnswerMetrics.f1("the city of Stanley Stanley", "Stanley");
        assertEquals(0.25, s.precision(), 1e-12);
        assertEquals(1.0, s.recall(), 1e-12);
        assertEquals(0.4, s.f(), 1e-12);
        assertEquals(0.0, AnswerMetrics.f1("Paris", "Lyon").f());
        assertEquals(1.0, AnswerMetrics.f1("", "the").f(), "both empty after normalisation: MuSiQue gives 1");
        assertEquals(0.0, AnswerMetrics.f1("", "Lyon").f());
    }

    @Test
    void f3WeighsRecall() {
        // P = 1/4, R = 1: F3 = 10 · 0.25 / (9 · 0.25 + 1) = 2.5 / 3.25
        assertEquals(2.5 / 3.25, AnswerMetrics.fBeta("the city of Stanley Stanley", "Stanley", 3).f(), 1e-12);
        assertTrue(AnswerMetrics.fBeta("x y z w", "x", 3).f() > AnswerMetrics.f1("x y z w", "x").f());
    }

    @Test
    void aliasesGiveTheBestScore() {
        List<String> golds = List.of("New York City", "NYC", "New York");
        assertTrue(AnswerMetrics.exactMatchAny("nyc", golds));
        assertEquals(1.0, AnswerMetrics.bestFBeta("New York", golds, 1).f(), 1e-12);
        assertFalse(AnswerMetrics.exactMatchAny("Boston", golds));
    }

    @Test
    void hotpotRefusesPartialCreditAcrossYesAndNo() {
        assertEquals(0.0, AnswerMetrics.hotpotF1("yes they were", "yes").f(), "differs from a yes/no gold: 0");
        assertEquals(1.0, AnswerMetrics.hotpotF1("Yes", "yes").f());
        assertEquals(0.0, AnswerMetrics.hotpotF1("", "").f(), "HotpotQA has no empty/empty rule");
        assertEquals(2.0 / 3, AnswerMetrics.hotpotF1("Scott Derrickson", "Derrickson").f(), 1e-12);
    }

    @Test
    void supportF1OverSets() {
        var s = AnswerMetrics.setF1(Set.of(1, 8, 3), Set.of(1, 8), true);
        assertEquals(2.0 / 3, s.precision(), 1e-12);
        assertEquals(0.8, s.f(), 1e-12);
        assertEquals(1.0, AnswerMetrics.setF1(Set.of(), Set.of(), true).f(), "MuSiQue: empty against empty is perfect");
        assertEquals(0.0, AnswerMetrics.setF1(Set.of(), Set.of(), false).f(), "HotpotQA: it is not");
    }
}
