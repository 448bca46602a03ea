package dev.agentswarm.core.protocol;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The prompt ids of a trajectory's assistant turns, kept compactly: a multi-turn prompt that is the
 * previous prompt + the previous completion + what the episode added stores only the added ids,
 * so a trajectory does not hold its context once per turn.
 */
public final class PromptIds {

    /** What a turn keeps: the ids, and whether they follow the previous turn's prompt and completion. */
    public record Stored(int[] ids, boolean extendsPrevious) {}

    private PromptIds() {}

    /**
     * @param previousPrompt the previous assistant turn's whole prompt, or null on the first turn
     * @param previousCompletion that turn's completion ids
     */
    public static Stored store(int[] prompt, int[] previousPrompt, int[] previousCompletion) {
        if (previousPrompt == null || previousPrompt.length == 0) return new Stored(prompt, false);
        int a = previousPrompt.length;
        int b = previousCompletion.length;
        boolean extendsPrevious = prompt.length >= a + b && Arrays.equals(prompt, 0, a, previousPrompt, 0, a)
                && Arrays.equals(prompt, a, a + b, previousCompletion, 0, b);
        return extendsPrevious ? new Stored(Arrays.copyOfRange(prompt, a + b, prompt.length), true) : new Stored(prompt, false);
    }

    /**
     * Each assistant turn's whole prompt, in order; null for a turn that carries none (a policy that
     * did not say what it conditioned on), and for any turn extending one that is not known.
     */
    public static List<int[]> rebuild(List<Turn> turns) {
        List<int[]> out = new ArrayList<>();
        int[] previous = null;
        int[] previousCompletion = null;
        for (Turn t : turns) {
            if (!t.isAssistant()) continue;
            int[] prompt;
            if (t.promptIds().length == 0 && !t.promptExtends()) {
                prompt = null;
            } else if (!t.promptExtends()) {
                prompt = t.promptIds();
            } else if (previous == null) {
                prompt = null;
            } else {
                prompt = new int[previous.length + previousCompletion.length + t.promptIds().length];
                System.arraycopy(previous, 0, prompt, 0, previous.length);
                System.arraycopy(previousCompletion, 0, prompt, previous.length, previousCompletion.length);
                System.arraycopy(t.promptIds(), 0, prompt, previous.length + previousCompletion.length, t.promptIds().length);
            }
            out.add(prompt);
            previous = prompt;
            previousCompletion = t.tokenIds();
        }
        return out;
    }
}
