package dev.agentswarm.core.reward;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Answer scores as the official MuSiQue and HotpotQA scorers compute them (the SQuAD rules): a
 * normalised string (lower case, ASCII punctuation removed, articles a/an/the dropped, whitespace
 * collapsed), exact match, and token F1 over the multiset of whitespace tokens; best over a gold
 * answer's aliases. Plus recall-biased F-beta (seed 000 scores search with F3) and set F1 for
 * supporting facts.
 */
public final class AnswerMetrics {

    /** Python's string.punctuation. */
    private static final String PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
    private static final Pattern ARTICLES = Pattern.compile("\\b(a|an|the)\\b");
    private static final Pattern SPACES = Pattern.compile("\\s+");
    private static final Set<String> YES_NO = Set.of("yes", "no", "noanswer");

    private AnswerMetrics() {}

    /** Precision, recall and F-beta of one comparison. */
    public record Prf(double precision, double recall, double f) {
        static final Prf ZERO = new Prf(0, 0, 0);
    }

    public static String normalize(String s) {
        if (s == null) return "";
        String lower = s.toLowerCase(Locale.ROOT);
        StringBuilder sb = new StringBuilder(lower.length());
        for (int i = 0; i < lower.length(); i++) {
            char c = lower.charAt(i);
            if (PUNCTUATION.indexOf(c) < 0) sb.append(c);
        }
        String noArticles = ARTICLES.matcher(sb).replaceAll(" ");
        return SPACES.matcher(noArticles.strip()).replaceAll(" ");
    }

    public static List<String> tokens(String s) {
        String n = normalize(s);
        return n.isEmpty() ? List.of() : List.of(n.split(" "));
    }

    public static boolean exactMatch(String prediction, String gold) {
        return normalize(prediction).equals(normalize(gold));
    }

    /** Token F1 (MuSiQue's rule: when either side has no tokens, 1 if both are empty, else 0). */
    public static Prf f1(String prediction, String gold) {
        return fBeta(prediction, gold, 1.0);
    }

    /**
     * Token F-beta, (1 + β²)·P·R / (β²·P + R): β > 1 weighs recall (seed 000's F3 for search, where
     * finding the answer matters more than a tight phrasing).
     */
    public static Prf fBeta(String prediction, String gold, double beta) {
        List<String> p = tokens(prediction);
        List<String> g = tokens(gold);
        if (p.isEmpty() || g.isEmpty()) return p.isEmpty() && g.isEmpty() ? new Prf(1, 1, 1) : Prf.ZERO;
        int common = common(p, g);
        if (common == 0) return Prf.ZERO;
        double precision = (double) common / p.size();
        double recall = (double) common / g.size();
        double b2 = beta * beta;
        return new Prf(precision, recall, (1 + b2) * precision * recall / (b2 * precision + recall));
    }

    /**
     * HotpotQA's answer F1: as {@link #f1}, except that when either normalised side is yes, no or
     * noanswer and they differ, the score is 0.
     */
    public static Prf hotpotF1(String prediction, String gold) {
        String p = normalize(prediction);
        String g = normalize(gold);
        if ((YES_NO.contains(p) || YES_NO.contains(g)) && !p.equals(g)) return Prf.ZERO;
        List<String> pt = tokens(prediction);
        List<String> gt = tokens(gold);
        if (pt.isEmpty() || gt.isEmpty()) return Prf.ZERO; // hotpot's scorer has no empty/empty rule
        return f1(prediction, gold);
    }

    /** The best exact match over the gold answer and its aliases. */
    public static boolean exactMatchAny(String prediction, Collection<String> golds) {
        for (String g : golds) if (exactMatch(prediction, g)) return true;
        return false;
    }

    /** The best F-beta over the gold answer and its aliases. */
    public static Prf bestFBeta(String prediction, Collection<String> golds, double beta) {
        Prf best = Prf.ZERO;
        for (String g : golds) {
            Prf s = fBeta(prediction, g, beta);
            if (s.f() > best.f()) best = s;
        }
        return best;
    }

    /**
     * Set precision/recall/F1 of predicted against gold supporting facts. {@code emptyIsPerfect}:
     * MuSiQue scores empty against empty as 1, HotpotQA as 0.
     */
    public static <T> Prf setF1(Collection<T> predicted, Collection<T> gold, boolean emptyIsPerfect) {
        Set<T> p = new HashSet<>(predicted);
        Set<T> g = new HashSet<>(gold);
        if (p.isEmpty() && g.isEmpty()) return emptyIsPerfect ? new Prf(1, 1, 1) : Prf.ZERO;
        Set<T> both = new HashSet<>(p);
        both.retainAll(g);
        if (both.isEmpty()) return Prf.ZERO;
        double precision = (double) both.size() / p.size();
        double recall = (double) both.size() / g.size();
        return new Prf(precision, recall, 2 * precision * recall / (precision + recall));
    }

    private static int common(List<String> a, List<String> b) {
        Map<String, Integer> counts = new HashMap<>();
        for (String t : b) counts.merge(t, 1, Integer::sum);
        int n = 0;
        for (String t : new ArrayList<>(a)) {
            Integer c = counts.get(t);
            if (c != null && c > 0) {
                n++;
                counts.put(t, c - 1);
            }
        }
        return n;
    }
}
