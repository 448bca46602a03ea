package dev.agentswarm.core.reward;

import java.util.List;

/**
 * Seed 000's format term ("strictly enforcing 100% structure compliance") from plain values, so it
 * needs no episode: the share of format checks a completion passes, and the strict all-or-nothing
 * form. The checks, each worth the same:
 * <ul>
 *   <li>one per required tag: it occurs and every {@code <tag>} is closed by a {@code </tag>} before
 *       the next opens, with no stray closing tag ({@link #tagClosed});
 *   <li>a final answer was given;
 *   <li>tool calls parsed: parsed / (parsed + failed); left out when the completion attempted none.
 * </ul>
 */
public final class FormatReward {

    private FormatReward() {}

    /**
     * @param requiredTags tag names without brackets, e.g. {@code think}
     * @param parsedToolCalls tool calls read without an error
     * @param toolCallErrors tool-call attempts (or turns) the format could not read
     * @return the mean over the checks, in [0, 1]
     */
    public static double fraction(String text, List<String> requiredTags, boolean answered, int parsedToolCalls,
                                  int toolCallErrors) {
        if (parsedToolCalls < 0 || toolCallErrors < 0) {
            throw new IllegalArgumentException("tool-call counts must be >= 0, got " + parsedToolCalls + " and " + toolCallErrors);
        }
        double passed = 0;
        int checks = 0;
        for (String tag : requiredTags) {
            checks++;
            if (tagClosed(text, tag)) passed++;
        }
        checks++;
        if (answered) passed++;
        int attempts = parsedToolCalls + toolCallErrors;
        if (attempts > 0) {
            checks++;
            passed += (double) parsedToolCalls / attempts;
        }
        return passed / checks;
    }

    /** 1 only when every check passes (the seed's 100% compliance), else 0. */
    public static double strict(String text, List<String> requiredTags, boolean answered, int parsedToolCalls,
                                int toolCallErrors) {
        return fraction(text, requiredTags, answered, parsedToolCalls, toolCallErrors) == 1.0 ? 1.0 : 0.0;
    }

    /**
     * Whether {@code <tag>…</tag>} occurs at least once and every pair is closed: openings and
     * closings alternate, starting with an opening and ending with a closing (so no nesting of the
     * same tag, no unclosed or stray tag).
     */
    public static boolean tagClosed(String text, String tag) {
        if (text == null) return false;
        String open = "<" + tag + ">";
        String close = "</" + tag + ">";
        boolean inside = false;
        int pairs = 0;
        int i = 0;
        while (true) {
            int o = text.indexOf(open, i);
            int c = text.indexOf(close, i);
            if (o < 0 && c < 0) break;
            boolean opening = o >= 0 && (c < 0 || o < c);
            if (opening == inside) return false; // an opening inside, or a closing outside
            inside = opening;
            if (!opening) pairs++;
            i = (opening ? o + open.length() : c + close.length());
        }
        return !inside && pairs > 0;
    }
}
