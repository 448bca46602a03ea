package dev.agentswarm.core.reward;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Answer scores as the official MuSiQue and HotpotQA scorers compute them (the SQuAD rules) on
 * {@link AnswerText}'s normalised text: exact match, and token F1 over the multiset of whitespace
 * tokens; best over a gold answer's aliases; HotpotQA's yes/no rule. Plus recall-biased F-beta
 * (seed 000 scores search with F3) and set P/R/F1 for supporting facts, with each benchmark's rule
 * for empty against empty.
 */
public final class AnswerMetrics {

    private static final Set<String> YES_NO = Set.of("yes", "no", "noanswer");

    private AnswerMetrics() {}

    /** Precision, recall and F-beta of one comparison. */
    public record Prf(double precision, double recall, double f) {
        static final Prf ZERO = new Prf(0, 0, 0);
        static final Prf ONE = new Prf(1, 1, 1);
    }

    /** {@link AnswerText#normalize}, here for callers that score answers. */
    public static String normalize(String s) {
        return AnswerText.normalize(s);
    }

    /** {@link AnswerText#tokens}. */
    public static List<String> tokens(String s) {
        return AnswerText.tokens(s);
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
     * finding the answer matters more than a tight phrasing). Empty sides follow MuSiQue's rule.
     */
    public static Prf fBeta(String prediction, String gold, double beta) {
        if (!(beta > 0) || Double.isInfinite(beta)) throw new IllegalArgumentException("beta must be > 0 and finite, got " + beta);
        List<String> p = tokens(prediction);
        List<String> g = tokens(gold);
        if (p.isEmpty() || g.isEmpty()) return p.isEmpty() && g.isEmpty() ? Prf.ONE : Prf.ZERO;
        return overlap(p, g, beta);
    }

    /**
     * HotpotQA's answer F1: when either normalised side is yes, no or noanswer and they differ,
     * F1 = P = R = 0; otherwise token F1, except that empty against empty is 0 (HotpotQA's scorer
     * has no empty rule: no common token, no score).
     */
    public static Prf hotpotF1(String prediction, String gold) {
        String p = normalize(prediction);
        String g = normalize(gold);
        if ((YES_NO.contains(p) || YES_NO.contains(g)) && !p.equals(g)) return Prf.ZERO;
        List<String> pt = AnswerText.split(p);
        List<String> gt = AnswerText.split(g);
        if (pt.isEmpty() || gt.isEmpty()) return Prf.ZERO;
        return overlap(pt, gt, 1.0);
    }

    /** The gold answer followed by its aliases, the list MuSiQue takes the best score over. */
    public static List<String> golds(String answer, Collection<String> aliases) {
        List<String> out = new ArrayList<>();
        out.add(answer);
        if (aliases != null) out.addAll(aliases);
        return out;
    }

    /** The best exact match over the gold answer and its aliases. */
    public static boolean exactMatchAny(String prediction, Collection<String> golds) {
        for (String g : golds) if (exactMatch(prediction, g)) return true;
        return false;
    }

    /** The best token F1 over the gold answer and its aliases (MuSiQue's answer_f1). */
    public static Prf bestF1(String prediction, Collection<String> golds) {
        return bestFBeta(prediction, golds, 1.0);
    }

    /** The best F-beta over the gold answer and its aliases; 0 with no gold at all. */
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
        if (p.isEmpty() && g.isEmpty()) return emptyIsPerfect ? Prf.ONE : Prf.ZERO;
        Set<T> both = new HashSet<>(p);
        both.retainAll(g);
        if (both.isEmpty()) return Prf.ZERO;
        double precision = (double) both.size() / p.size();
        double recall = (double) both.size() / g.size();
        return new Prf(precision, recall, 2 * precision * recall / (precision + recall));
    }

    /** MuSiQue's support_f1 over paragraph indices: empty against empty is 1. */
    public static <T> Prf musiqueSupportF1(Collection<T> predicted, Collection<T> gold) {
        return setF1(predicted, gold, true);
    }

    /** HotpotQA's sp_f1 over (title, sentence) facts: empty against empty is 0. */
    public static <T> Prf hotpotSupportF1(Collection<T> predicted, Collection<T> gold) {
        return setF1(predicted, gold, false);
    }

    /** Set exact match (MuSiQue's support EM and HotpotQA's sp_em agree: empty against empty is 1). */
    public static <T> boolean setExactMatch(Collection<T> predicted, Collection<T> gold) {
        return new HashSet<>(predicted).equals(new HashSet<>(gold));
    }

    /** P, R and F-beta from the multiset overlap of two non-empty token lists (Python's {@code Counter &}). */
    private static Prf overlap(List<String> p, List<String> g, double beta) {
        Map<String, Integer> counts = new HashMap<>();
        for (String t : g) counts.merge(t, 1, Integer::sum);
        int common = 0;
        for (String t : p) {
            Integer c = counts.get(t);
            if (c != null && c > 0) {
                common++;
                counts.put(t, c - 1);
            }
        }
        if (common == 0) return Prf.ZERO;
        double precision = (double) common / p.size();
        double recall = (double) common / g.size();
        double b2 = beta * beta;
        return new Prf(precision, recall, (1 + b2) * precision * recall / (b2 * precision + recall));
    }
}
