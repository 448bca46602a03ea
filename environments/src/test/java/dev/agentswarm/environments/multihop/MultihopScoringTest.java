package dev.agentswarm.environments.multihop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.agentswarm.core.reward.AnswerVerification;
import dev.agentswarm.environments.EpisodeOutcome;
import dev.agentswarm.environments.multihop.MultihopScoring.AnswerRule;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MultihopScoringTest {

    private static final MultihopScoring.Settings SETTINGS = new MultihopScoring.Settings(AnswerVerification.Rules.DEFAULT, 0.25, 4);
    private static final MultihopScoring.Gold GOLD = new MultihopScoring.Gold(List.of("Stanley"), Set.of("1", "8"), 2);

    private static Map<String, Double> score(String answer, int toolCalls) {
        return MultihopScoring.score(new EpisodeOutcome(answer, toolCalls + 1, toolCalls, toolCalls, 0), GOLD, SETTINGS,
                AnswerRule.SQUAD, cited -> cited);
    }

    @Test
    void aRightAnswerCitingItsSupportInAsManySearchesAsHopsScoresOneEverywhere() {
        Map<String, Double> c = score("Stanley [8][1]", 2);
        for (String name : List.of("pass", "f1", "em", "f3", "verified", "outcome", "support_f1", "support_em", "efficiency", "format", "tool_call")) {
            assertEquals(1.0, c.get(name), name);
        }
        assertEquals(2.0, c.get("hops"));
    }

    @Test
    void aWiderAnswerKeepsRecallAndLosesPrecision() {
        // "stanley north dakota" against "stanley": P = 1/3, R = 1.
        Map<String, Double> c = score("Stanley, North Dakota [8]", 2);
        assertEquals(0.5, c.get("f1"), 1e-12);
        assertEquals(10.0 / 3 / 4, c.get("f3"), 1e-12, "F3 = 10PR / (9P + R)");
        assertEquals(0.0, c.get("em"));
        assertEquals(1.0, c.get("verified"), "a state after a town is one extra name: allowed");
        assertEquals(c.get("f3"), c.get("outcome"), 1e-12);
        assertEquals(2.0 / 3, c.get("support_f1"), 1e-12, "P = 1, R = 1/2");
        assertEquals(0.0, c.get("support_em"));
    }

    @Test
    void keywordStuffingIsNotVerifiedAndKeepsAQuarterOfItsF3() {
        // Five tokens, one right: P = 1/5, R = 1.
        Map<String, Double> c = score("Stanley, Bismarck, Minot or Fargo [8][1]", 2);
        assertEquals(0.0, c.get("verified"));
        assertEquals(10 * 0.2 / (9 * 0.2 + 1), c.get("f3"), 1e-12);
        assertEquals(0.25 * c.get("f3"), c.get("outcome"), 1e-12);
        assertEquals(2 * 0.2 / 1.2, c.get("f1"), 1e-12);
        assertEquals(1.0, c.get("pass"), "seed 000's pass rule (F1 > 0.3) still counts it; the reward does not");
    }

    @Test
    void extraSearchesCostEfficiencyAndNoAnswerScoresNothing() {
        assertEquals(0.5, score("Stanley [8][1]", 4).get("efficiency"), 1e-12, "hops 2, zero at 2 + 4: (6 - 4) / (6 - 2)");
        assertEquals(0.0, score("Stanley [8][1]", 6).get("efficiency"));
        Map<String, Double> none = score(null, 3);
        for (String name : List.of("pass", "f1", "em", "f3", "verified", "outcome", "support_f1", "efficiency", "format")) {
            assertEquals(0.0, none.get(name), name);
        }
        assertEquals(3.0, none.get("hops"));
        assertEquals(1.0, none.get("tool_call"), "it tried the tool: seed 002's bonus");
        assertEquals(0.0, score("Bismarck [8][1]", 2).get("pass"));
    }

    @Test
    void badSettingsAndGoldsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new MultihopScoring.Settings(AnswerVerification.Rules.DEFAULT, 1.5, 4));
        assertThrows(IllegalArgumentException.class, () -> new MultihopScoring.Settings(AnswerVerification.Rules.DEFAULT, 0.25, 0));
        assertThrows(IllegalArgumentException.class, () -> new MultihopScoring.Gold(List.of(), Set.of(), 2));
        assertThrows(IllegalArgumentException.class, () -> new MultihopScoring.Gold(List.of("x"), Set.of(), 0));
    }
}
