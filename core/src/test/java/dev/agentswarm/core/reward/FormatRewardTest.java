package dev.agentswarm.core.reward;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class FormatRewardTest {

    private static final List<String> THINK = List.of("think");

    @Test
    void aCleanCompletionPassesEveryCheck() {
        assertEquals(1.0, FormatReward.fraction("<think>plan</think>Stanley", THINK, true, 0, 0));
        assertEquals(1.0, FormatReward.strict("<think>plan</think>Stanley", THINK, true, 2, 0));
    }

    @Test
    void eachCheckWeighsTheSame() {
        assertEquals(0.5, FormatReward.fraction("<think>plan, no end. Stanley", THINK, true, 0, 0), 1e-12);
        assertEquals(0.5, FormatReward.fraction("<think>plan</think>", THINK, false, 0, 0), 1e-12, "no final answer");
        // think ✓, answer ✓, answered ✓, tool calls 3 of 4 parsed: (1 + 1 + 1 + 0.75) / 4
        String text = "<think>a</think><answer>x</answer>";
        assertEquals(0.9375, FormatReward.fraction(text, List.of("think", "answer"), true, 3, 1), 1e-12);
        assertEquals(0.0, FormatReward.strict(text, List.of("think", "answer"), true, 3, 1), "the seed's 100% or nothing");
        assertEquals(0.0, FormatReward.fraction("", THINK, false, 0, 5), "nothing right");
        assertEquals(1.0, FormatReward.fraction("", List.of(), true, 0, 0), "no tags required, answered");
        assertThrows(IllegalArgumentException.class, () -> FormatReward.fraction("", THINK, true, -1, 0));
    }

    @Test
    void tagsMustBeClosedPairs() {
        assertTrue(FormatReward.tagClosed("<think>a</think> x <think>b</think>", "think"));
        assertFalse(FormatReward.tagClosed("</think><think>", "think"), "closed before opened");
        assertFalse(FormatReward.tagClosed("<think><think>a</think></think>", "think"), "nested");
        assertFalse(FormatReward.tagClosed("<think>a</think><think>", "think"), "the second is unclosed");
        assertFalse(FormatReward.tagClosed("a</think>", "think"), "a stray closing tag");
        assertFalse(FormatReward.tagClosed("no tags", "think"));
        assertFalse(FormatReward.tagClosed(null, "think"));
    }
}
