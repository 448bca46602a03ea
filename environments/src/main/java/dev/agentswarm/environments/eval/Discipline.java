package dev.agentswarm.environments.eval;

import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
import dev.agentswarm.environments.Noise;
import java.util.List;
import java.util.Locale;

/**
 * Seed 001's discipline figures of an episode: chatty filler in what the policy wrote (greetings,
 * "certainly", "let me think about this carefully…"), whether every turn kept the action format and
 * the episode ended in a final answer, and how many tokens it spent. They are judged from the text
 * the policy wrote, never from the task, so they apply to every suite.
 */
public final class Discipline {

    /**
     * Phrases that carry no information for the task, matched case-insensitively anywhere in an
     * assistant turn: the noise our oracles add, and the filler seed 001 removes.
     */
    public static final List<String> FILLER_PHRASES = List.of(
            Noise.FILLER.strip().toLowerCase(Locale.ROOT), "okay, let me", "let me look at this step by step", "certainly!", "i can help with that",
            "i'd be happy to", "i would be happy to", "great question", "have a nice day", "hope this helps");

    private Discipline() {}

    /** True when some assistant turn contains a filler phrase. */
    public static boolean hasFiller(Trajectory t) {
        for (Turn turn : t.assistantTurns()) if (hasFiller(turn.text())) return true;
        return false;
    }

    public static boolean hasFiller(String text) {
        String lower = text.toLowerCase(Locale.ROOT);
        for (String phrase : FILLER_PHRASES) if (lower.contains(phrase)) return true;
        return false;
    }

    /** Every assistant turn parsed as a valid action and the episode ended with a final answer. */
    public static boolean validFormat(Trajectory t) {
        if (!t.stopReason().completed()) return false;
        for (Turn turn : t.assistantTurns()) if (!turn.formatErrors().isEmpty()) return false;
        return true;
    }

    /** Tokens the policy generated over the whole episode. */
    public static int completionTokens(Trajectory t) {
        if (t.stats() != null) return t.stats().completionTokens();
        int n = 0;
        for (Turn turn : t.assistantTurns()) n += turn.tokenIds().length;
        return n;
    }

    /**
     * A preference score for building DPO pairs from rollouts: the episode's reward, less
     * {@code fillerPenalty} when it has filler and {@code formatPenalty} when its format is not valid.
     */
    public static double score(Trajectory t, double fillerPenalty, double formatPenalty) {
        double r = t.reward() == null ? 0 : t.reward().total();
        if (hasFiller(t)) r -= fillerPenalty;
        if (!validFormat(t)) r -= formatPenalty;
        return r;
    }
}
