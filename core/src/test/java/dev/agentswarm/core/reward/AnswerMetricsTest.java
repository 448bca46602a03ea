package dev.agentswarm.core.reward;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
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

    @Test
    void bestOverTheAnswerAndItsAliases() {
        List<String> golds = AnswerMetrics.golds("Stanley", List.of("Stanley city"));
        assertEquals(List.of("Stanley", "Stanley city"), golds);
        // [city, of, stanley] vs [stanley]: P 1/3, R 1, F1 0.5; vs [stanley, city]: P 2/3, R 1, F1 0.8
        AnswerMetrics.Prf best = AnswerMetrics.bestF1("the city of Stanley", golds);
        assertEquals(0.8, best.f(), 1e-12);
        assertEquals(2.0 / 3, best.precision(), 1e-12);
        assertEquals(0.0, AnswerMetrics.bestF1("Stanley", List.of()).f(), "no gold, no score");
        assertEquals(List.of("x"), AnswerMetrics.golds("x", null));
    }

    @Test
    void punctuationOnlyAnswersAreEmpty() {
        assertTrue(AnswerMetrics.exactMatch("?!", "..."));
        assertEquals(1.0, AnswerMetrics.f1("?!", "...").f(), "MuSiQue: both empty");
        assertEquals(0.0, AnswerMetrics.f1("?!", "Stanley").f());
        assertEquals(0.0, AnswerMetrics.hotpotF1("?!", "...").f(), "HotpotQA: no common token, no score");
    }

    @Test
    void hotpotsYesNoRuleAgainstMusiquesPlainF1() {
        // "yes" vs "yes sir": plain F1 has P 1, R 1/2, F1 2/3; HotpotQA gives 0 (the prediction is yes, and differs)
        assertEquals(2.0 / 3, AnswerMetrics.f1("yes", "yes sir").f(), 1e-12);
        assertEquals(0.0, AnswerMetrics.hotpotF1("yes", "yes sir").f());
        assertEquals(0.0, AnswerMetrics.hotpotF1("yes", "yes sir").precision());
        assertEquals(0.0, AnswerMetrics.hotpotF1("noanswer", "Paris").f());
        assertEquals(1.0, AnswerMetrics.hotpotF1("No.", "no").f(), "equal after normalisation");
        var p = AnswerMetrics.hotpotF1("Derrickson Derrickson", "Scott Derrickson");
        assertEquals(0.5, p.precision(), 1e-12);
        assertEquals(0.5, p.recall(), 1e-12);
    }

    @Test
    void supportScoresOfEachBenchmark() {
        assertEquals(1.0, AnswerMetrics.musiqueSupportF1(List.of(), List.of()).f());
        assertEquals(0.0, AnswerMetrics.hotpotSupportF1(List.of(), List.of()).f());
        assertTrue(AnswerMetrics.setExactMatch(List.of(), List.of()), "both scorers give EM 1 to empty against empty");
        assertTrue(AnswerMetrics.setExactMatch(List.of(2, 1, 1), List.of(1, 2)), "sets: order and repeats do not count");
        assertFalse(AnswerMetrics.setExactMatch(List.of(1), List.of(1, 2)));
        // P = 1/1, R = 1/2: F1 = 2/3
        assertEquals(2.0 / 3, AnswerMetrics.hotpotSupportF1(List.of("Ed Wood#0"), List.of("Ed Wood#0", "Scott#0")).f(), 1e-12);
        assertEquals(0.0, AnswerMetrics.musiqueSupportF1(List.of(3), List.of()).f());
    }

    @Test
    void betaMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> AnswerMetrics.fBeta("a", "b", 0));
        assertThrows(IllegalArgumentException.class, () -> AnswerMetrics.fBeta("a", "b", Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> AnswerMetrics.fBeta("a", "b", Double.POSITIVE_INFINITY));
    }
}
