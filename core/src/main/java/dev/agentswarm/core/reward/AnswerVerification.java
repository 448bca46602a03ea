package dev.agentswarm.core.reward;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Seed 000's "smart boost" check: an answer earns its outcome only if it commits to the gold's
 * entities and numbers instead of stuffing candidates in. It passes when:
 * <ul>
 *   <li>every number of the gold appears in the answer, and the answer has no other number;
 *   <li>every capitalised name of the gold (a run of capitalised words) appears in the answer;
 *   <li>the answer names at most {@code maxExtraEntities} capitalised names that are not the gold's;
 *   <li>the answer is at most {@code maxLengthRatio} × the gold's length in tokens (and at least 8 tokens allowed).
 * </ul>
 * Token F1 alone rewards "Paris, Lyon, Marseille or Nice" for a gold "Nice"; this refuses it.
 */
public final class AnswerVerification {

    private static final Pattern NUMBER = Pattern.compile("\\d+(?:[.,]\\d+)*");
    private static final Pattern NAME = Pattern.compile("\\b\\p{Lu}[\\p{L}'’-]*(?:\\s+\\p{Lu}[\\p{L}'’-]*)*");

    private AnswerVerification() {}

    /** Whether the answer passed, and if not, why (for logs and evaluation reports). */
    public record Verdict(boolean verified, String reason) {}

    public static Verdict verify(String answer, String gold, int maxExtraEntities, double maxLengthRatio) {
        if (answer == null || answer.isBlank()) return new Verdict(false, "no answer");
        Set<String> goldNumbers = numbers(gold);
        Set<String> answerNumbers = numbers(answer);
        if (!answerNumbers.containsAll(goldNumbers)) return new Verdict(false, "missing the number(s) " + goldNumbers);
        Set<String> extraNumbers = new HashSet<>(answerNumbers);
        extraNumbers.removeAll(goldNumbers);
        if (!extraNumbers.isEmpty()) return new Verdict(false, "other number(s) " + extraNumbers + " besides the answer");
        String normalizedAnswer = " " + AnswerMetrics.normalize(answer) + " ";
        List<String> goldNames = names(gold);
        for (String name : goldNames) {
            if (!normalizedAnswer.contains(" " + AnswerMetrics.normalize(name) + " ")) {
                return new Verdict(false, "missing the name \"" + name + "\"");
            }
        }
        Set<String> goldNormalized = new HashSet<>();
        for (String n : goldNames) goldNormalized.add(AnswerMetrics.normalize(n));
        Set<String> extra = new HashSet<>();
        for (String n : names(answer)) {
            String norm = AnswerMetrics.normalize(n);
            if (!norm.isEmpty() && !goldNormalized.contains(norm) && goldNormalized.stream().noneMatch(g -> g.contains(norm))) {
                extra.add(norm);
            }
        }
        if (extra.size() > maxExtraEntities) return new Verdict(false, "names other candidates " + extra);
        int goldTokens = Math.max(1, AnswerMetrics.tokens(gold).size());
        int allowed = Math.max(8, (int) Math.ceil(maxLengthRatio * goldTokens));
        int tokens = AnswerMetrics.tokens(answer).size();
        if (tokens > allowed) return new Verdict(false, tokens + " tokens where " + allowed + " would do");
        return new Verdict(true, "ok");
    }

    private static Set<String> numbers(String s) {
        Set<String> out = new HashSet<>();
        Matcher m = NUMBER.matcher(s == null ? "" : s);
        while (m.find()) out.add(m.group().replace(",", ""));
        return out;
    }

    /** Runs of capitalised words; a sentence's first word counts too, which only makes the check stricter. */
    private static List<String> names(String s) {
        List<String> out = new ArrayList<>();
        Matcher m = NAME.matcher(s == null ? "" : s);
        while (m.find()) out.add(m.group());
        return out;
    }
}
