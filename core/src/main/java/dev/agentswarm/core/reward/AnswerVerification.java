package dev.agentswarm.core.reward;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Seed 000's "smart boost" check: an answer earns its outcome only if it commits to the gold's
 * entities and numbers instead of stuffing candidates in. Token F1 alone pays "Paris, Lyon, Marseille
 * or Nice" for a gold "Nice"; this refuses it. The rules, in the order they are checked:
 * <ol>
 *   <li>numbers: every number of the gold appears in the answer, and the answer has no other number
 *       (thousands commas and trailing zeros do not matter: "1,234" = "1234", "2.50" = "2.5");
 *   <li>no hedging: the answer has no "or" unless the gold has one;
 *   <li>list length: the answer has at most {@code maxExtraEntities} more list items (pieces
 *       between {@code , ; / &}, "and", "or") than the gold;
 *   <li>every name of the gold (a run of words with a capital, leading function words such as "In" or
 *       "It" dropped) appears in the answer, after normalisation;
 *   <li>the answer names at most {@code maxExtraEntities} names that are not in the gold, with at
 *       most 2 × {@code maxExtraEntities} words the gold does not have ("Paris Lyon Marseille Nice"
 *       is one run of capitals, but three words beyond a gold "Nice");
 *   <li>length: at most max({@code minAllowedTokens}, ⌈{@code maxLengthRatio} × gold tokens⌉) tokens.
 * </ol>
 * The verdict's score is 1 when every rule holds and 0 otherwise, with the first failed rule as the
 * reason; names are only found by their capitals, so lower-case stuffing is caught by the list,
 * hedging and length rules.
 */
public final class AnswerVerification {

    private static final Pattern NUMBER = Pattern.compile("\\d+(?:[.,]\\d+)*");
    /**
     * A word with a capital anywhere ("Paris", "U.S.", "al-Razi", "McDonald"), taken whole so that it
     * normalises as the answer does ("al-Razi" is "alrazi", not "razi").
     */
    private static final String CAPITALISED_WORD = "[\\p{L}\\p{N}'’.-]*\\p{Lu}[\\p{L}\\p{N}'’.-]*";
    private static final Pattern NAME = Pattern.compile("(?<![\\p{L}\\p{N}'’.-])" + CAPITALISED_WORD + "(?:\\s+" + CAPITALISED_WORD + ")*");
    /** List separators; a comma between digits is a thousands separator, not one. */
    private static final Pattern LIST = Pattern.compile("(?<!\\d),|,(?!\\d)|[;/&]|\\b(?:and|or)\\b", Pattern.CASE_INSENSITIVE);
    /** Capitalised words that start sentences rather than name things. */
    private static final Set<String> FUNCTION_WORDS = Set.of("a", "an", "the", "it", "its", "he", "she", "they", "we",
            "i", "you", "this", "that", "these", "those", "there", "here", "in", "on", "at", "by", "for", "from", "of",
            "to", "with", "as", "after", "before", "since", "yes", "no", "answer", "final", "is", "was", "are", "were",
            "his", "her", "their", "our", "my", "according", "so", "thus", "therefore", "because", "and", "or");

    private AnswerVerification() {}

    /**
     * @param maxExtraEntities list items and names allowed beyond the gold's (context such as a state after a town)
     * @param maxLengthRatio answer tokens allowed per gold token
     * @param minAllowedTokens the length every answer may have, however short the gold
     */
    public record Rules(int maxExtraEntities, double maxLengthRatio, int minAllowedTokens) {
        public static final Rules DEFAULT = new Rules(1, 3.0, 8);

        public Rules {
            if (maxExtraEntities < 0) throw new IllegalArgumentException("maxExtraEntities must be >= 0, got " + maxExtraEntities);
            if (!(maxLengthRatio >= 1) || Double.isInfinite(maxLengthRatio)) {
                throw new IllegalArgumentException("maxLengthRatio must be finite and >= 1, got " + maxLengthRatio);
            }
            if (minAllowedTokens < 1) throw new IllegalArgumentException("minAllowedTokens must be >= 1, got " + minAllowedTokens);
        }
    }

    /** Whether the answer passed, and if not, why (for logs and evaluation reports). */
    public record Verdict(boolean verified, String reason) {
        /** 1 for a verified answer, else 0: the factor seed 000's boost applies to the outcome. */
        public double score() {
            return verified ? 1.0 : 0.0;
        }
    }

    public static Verdict verify(String answer, String gold, int maxExtraEntities, double maxLengthRatio) {
        return verify(answer, gold, new Rules(maxExtraEntities, maxLengthRatio, Rules.DEFAULT.minAllowedTokens()));
    }

    public static Verdict verify(String answer, String gold, Rules rules) {
        if (answer == null || answer.isBlank()) return new Verdict(false, "no answer");
        String goldText = gold == null ? "" : gold;
        Set<String> goldNumbers = numbers(goldText);
        Set<String> answerNumbers = numbers(answer);
        Set<String> missingNumbers = new TreeSet<>(goldNumbers);
        missingNumbers.removeAll(answerNumbers);
        if (!missingNumbers.isEmpty()) return new Verdict(false, "missing the number(s) " + missingNumbers);
        Set<String> extraNumbers = new TreeSet<>(answerNumbers);
        extraNumbers.removeAll(goldNumbers);
        if (!extraNumbers.isEmpty()) return new Verdict(false, "other number(s) " + extraNumbers + " besides the answer");

        List<String> answerTokens = AnswerText.tokens(answer);
        List<String> goldTokens = AnswerText.tokens(goldText);
        if (answerTokens.contains("or") && !goldTokens.contains("or")) return new Verdict(false, "hedges between alternatives");
        int items = listItems(answer);
        int goldItems = Math.max(1, listItems(goldText));
        if (items - goldItems > rules.maxExtraEntities()) {
            return new Verdict(false, "lists " + items + " candidates where the gold has " + goldItems);
        }

        String normalizedAnswer = padded(AnswerText.normalize(answer));
        for (String name : names(goldText)) {
            if (!normalizedAnswer.contains(padded(name))) return new Verdict(false, "missing the name \"" + name + "\"");
        }
        String normalizedGold = padded(AnswerText.normalize(goldText));
        Set<String> extra = new TreeSet<>();
        int extraWords = 0;
        for (String name : names(answer)) {
            if (normalizedGold.contains(padded(name)) || !extra.add(name)) continue;
            for (String word : name.split(" ")) if (!goldTokens.contains(word)) extraWords++;
        }
        if (extra.size() > rules.maxExtraEntities() || extraWords > 2 * rules.maxExtraEntities()) {
            return new Verdict(false, "names other candidates " + extra);
        }

        int allowed = Math.max(rules.minAllowedTokens(), (int) Math.ceil(rules.maxLengthRatio() * Math.max(1, goldTokens.size())));
        if (answerTokens.size() > allowed) return new Verdict(false, answerTokens.size() + " tokens where " + allowed + " would do");
        return new Verdict(true, "ok");
    }

    /** Verified against any of the gold answer and its aliases; otherwise the first gold's verdict. */
    public static Verdict verifyAny(String answer, Collection<String> golds, Rules rules) {
        Verdict first = null;
        for (String g : golds) {
            Verdict v = verify(answer, g, rules);
            if (v.verified()) return v;
            if (first == null) first = v;
        }
        return first == null ? new Verdict(false, "no gold answer") : first;
    }

    private static String padded(String normalized) {
        return " " + normalized + " ";
    }

    /** Numbers in a canonical form: no thousands commas, no trailing zeros. */
    private static Set<String> numbers(String s) {
        Set<String> out = new HashSet<>();
        Matcher m = NUMBER.matcher(s);
        while (m.find()) {
            String n = m.group().replace(",", "");
            try {
                out.add(new BigDecimal(n).stripTrailingZeros().toPlainString());
            } catch (NumberFormatException e) {
                out.add(n); // "1.2.3": a version or a date, compared as written
            }
        }
        return out;
    }

    private static int listItems(String s) {
        int n = 0;
        for (String piece : LIST.split(s)) if (!AnswerText.normalize(piece).isEmpty()) n++;
        return n;
    }

    /** Normalised runs of capitalised words, leading function words dropped ("In Paris" is "paris"). */
    private static List<String> names(String s) {
        List<String> out = new ArrayList<>();
        Matcher m = NAME.matcher(s);
        while (m.find()) {
            List<String> words = AnswerText.tokens(m.group());
            int start = 0;
            while (start < words.size() && FUNCTION_WORDS.contains(words.get(start))) start++;
            if (start < words.size()) out.add(String.join(" ", words.subList(start, words.size())));
        }
        return out;
    }
}
