package dev.agentswarm.core.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PromptIdsTest {

    private static Turn assistant(int index, int[] prompt, int[] completion, int[] previousPrompt, int[] previousCompletion) {
        Completion c = new Completion("", List.of(), completion, null, FinishReason.STOP, 0, prompt.length, completion.length, 0, prompt);
        return Turn.assistant(index, c, List.of(), List.of(), null, null)
                .withPrompt(PromptIds.store(prompt, previousPrompt, previousCompletion));
    }

    @Test
    void aGrowingPromptIsStoredAsWhatWasAddedAndRebuiltWhole() {
        int[] p1 = {1, 2, 3};
        int[] c1 = {4, 5};
        int[] p2 = {1, 2, 3, 4, 5, 6, 7};
        int[] c2 = {8};
        int[] p3 = {9, 9}; // a re-rendered prompt that does not extend the last one: kept whole
        List<Turn> turns = new ArrayList<>();
        turns.add(assistant(0, p1, c1, null, null));
        turns.add(Turn.observation(1, Role.TOOL, "42", List.of(), null));
        turns.add(assistant(2, p2, c2, p1, c1));
        turns.add(assistant(3, p3, new int[] {1}, p2, c2));
        assertArrayEquals(new int[] {6, 7}, turns.get(2).promptIds());
        assertTrue(turns.get(2).promptExtends());
        assertFalse(turns.get(3).promptExtends());
        List<int[]> rebuilt = PromptIds.rebuild(turns);
        assertEquals(3, rebuilt.size());
        assertArrayEquals(p1, rebuilt.get(0));
        assertArrayEquals(p2, rebuilt.get(1));
        assertArrayEquals(p3, rebuilt.get(2));
    }

    @Test
    void turnsWithoutPromptIdsAreUnknownNotEmpty() {
        Completion c = new Completion("x", List.of(), new int[] {1}, null, FinishReason.STOP, 0, 3, 1);
        List<int[]> rebuilt = PromptIds.rebuild(List.of(Turn.assistant(0, c, List.of(), List.of(), null, null)));
        assertNull(rebuilt.get(0));
    }
}
