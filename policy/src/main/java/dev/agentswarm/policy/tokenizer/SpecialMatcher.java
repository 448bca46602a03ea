package dev.agentswarm.policy.tokenizer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds the next verbatim special token in text. Candidates are grouped by first char, longest
 * first, so one pass over the text suffices and an overlapping shorter special never wins.
 */
final class SpecialMatcher {

    private final Map<Character, int[]> byFirstChar = new HashMap<>();
    private final List<String> specials;

    SpecialMatcher(List<String> specials) {
        this.specials = specials;
        Map<Character, List<Integer>> groups = new HashMap<>();
        for (int i = 0; i < specials.size(); i++) {
            groups.computeIfAbsent(specials.get(i).charAt(0), c -> new ArrayList<>()).add(i);
        }
        groups.forEach((c, list) -> {
            list.sort((a, b) -> specials.get(b).length() - specials.get(a).length());
            byFirstChar.put(c, list.stream().mapToInt(Integer::intValue).toArray());
        });
    }

    /** {position, special index} of the first special at or after {@code from}, or null. */
    int[] find(String text, int from) {
        if (byFirstChar.isEmpty()) {
            return null;
        }
        for (int i = from; i < text.length(); i++) {
            int[] candidates = byFirstChar.get(text.charAt(i));
            if (candidates == null) {
                continue;
            }
            for (int idx : candidates) {
                if (text.startsWith(specials.get(idx), i)) {
                    return new int[] {i, idx};
                }
            }
        }
        return null;
    }
}
