package dev.agentswarm.environments.multihop;

import com.typesafe.config.Config;
import dev.agentswarm.core.reward.AnswerMetrics;
import dev.agentswarm.core.reward.AnswerMetrics.Prf;
import dev.agentswarm.core.reward.AnswerVerification;
import dev.agentswarm.core.reward.ShapingRewards;
import dev.agentswarm.environments.EpisodeOutcome;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The reward components of a multi-hop episode, scored as the official MuSiQue and HotpotQA
 * evaluators do plus seed 000's shaping:
 * <ul>
 *   <li>{@code em}, {@code f1}: answer exact match and token F1 (best over the aliases; HotpotQA's
 *       yes/no rule under {@link AnswerRule#HOTPOT}), on the answer without its citations;
 *   <li>{@code f3}: recall-biased F-beta, β = 3 (seed 000 scores search with it);
 *   <li>{@code verified}: seed 000's smart-boost check (no keyword stuffing, the gold's names and
 *       numbers present); {@code outcome} = f3, scaled by {@code unverified-scale} when not verified;
 *   <li>{@code support_f1}, {@code support_em}: the cited passages (or sentences) against the gold
 *       support, with MuSiQue's empty rule (empty vs empty is 1) or HotpotQA's (0);
 *       {@code joint_f1}, {@code joint_em} under HOTPOT, as its evaluator combines them;
 *   <li>{@code efficiency}: 1 at or below the hops the task needs, 0 at hops + {@code efficiency-slack} searches;
 *   <li>{@code format}, {@code tool_call}; {@code hops}: the searches made (a count, for the table);
 *   <li>{@code pass}: answer F1 above 0.3, seed 000's pass rate.
 * </ul>
 */
public final class MultihopScoring {

    /** Seed 000's pass threshold on answer F1. */
    public static final double PASS_F1 = 0.3;
    static final double SEARCH_BETA = 3.0;

    /** How answers are compared: SQuAD/MuSiQue token F1, or HotpotQA's with its yes/no rule. */
    public enum AnswerRule { SQUAD, HOTPOT }

    /** The gold of one task: answer and aliases, support units, the searches it needs. */
    public record Gold(List<String> answers, Set<String> support, int hops) {
        public Gold {
            answers = List.copyOf(answers);
            support = Set.copyOf(support);
            if (answers.isEmpty()) throw new IllegalArgumentException("a multi-hop task needs a gold answer");
            if (hops < 1) throw new IllegalArgumentException("a multi-hop task needs at least one hop, got " + hops);
        }
    }

    /** The knobs of a suite's {@code scoring} block. */
    public record Settings(AnswerVerification.Rules rules, double unverifiedScale, int efficiencySlack) {
        public Settings {
            if (!(unverifiedScale >= 0 && unverifiedScale <= 1)) {
                throw new IllegalArgumentException("unverified-scale must be in [0, 1], got " + unverifiedScale);
            }
            if (efficiencySlack < 1) throw new IllegalArgumentException("efficiency-slack must be >= 1, got " + efficiencySlack);
        }

        public static Settings fromConfig(Config c) {
            return new Settings(new AnswerVerification.Rules(c.getInt("max-extra-entities"), c.getDouble("max-length-ratio"),
                    c.getInt("min-allowed-tokens")), c.getDouble("unverified-scale"), c.getInt("efficiency-slack"));
        }
    }

    private MultihopScoring() {}

    public static Set<String> components(AnswerRule rule) {
        Set<String> s = new LinkedHashSet<>(List.of("pass", "f1", "em", "f3", "verified", "outcome", "support_f1", "support_em",
                "efficiency", "format", "tool_call", "hops"));
        if (rule == AnswerRule.HOTPOT) s.addAll(List.of("joint_f1", "joint_em"));
        return s;
    }

    /**
     * @param supportOf the support units the cited keys stand for (the keys themselves, or HotpotQA's
     *     title/sentence facts)
     */
    public static Map<String, Double> score(EpisodeOutcome o, Gold gold, Settings settings, AnswerRule rule,
                                            java.util.function.Function<List<String>, Collection<String>> supportOf) {
        CitedAnswer cited = CitedAnswer.parse(o.answer());
        boolean answered = o.answer() != null;
        String text = cited.text();
        Prf f1 = !answered ? new Prf(0, 0, 0)
                : rule == AnswerRule.HOTPOT ? AnswerMetrics.hotpotF1(text, gold.answers().get(0))
                : AnswerMetrics.bestF1(text, gold.answers());
        boolean em = answered && AnswerMetrics.exactMatchAny(text, rule == AnswerRule.HOTPOT ? gold.answers().subList(0, 1) : gold.answers());
        double f3 = answered ? AnswerMetrics.bestFBeta(text, gold.answers(), SEARCH_BETA).f() : 0;
        boolean verified = answered && AnswerMetrics.tokens(text).size() > 0
                && AnswerVerification.verifyAny(text, gold.answers(), settings.rules()).verified();
        Collection<String> predicted = answered ? supportOf.apply(cited.citations()) : List.of();
        Prf sp = rule == AnswerRule.HOTPOT ? AnswerMetrics.hotpotSupportF1(predicted, gold.support())
                : AnswerMetrics.musiqueSupportF1(predicted, gold.support());
        boolean spEm = answered && AnswerMetrics.setExactMatch(predicted, gold.support());

        Map<String, Double> c = new LinkedHashMap<>();
        c.put("pass", f1.f() > PASS_F1 ? 1.0 : 0.0);
        c.put("f1", f1.f());
        c.put("em", em ? 1.0 : 0.0);
        c.put("f3", f3);
        c.put("verified", verified ? 1.0 : 0.0);
        c.put("outcome", verified ? f3 : f3 * settings.unverifiedScale());
        c.put("support_f1", sp.f());
        c.put("support_em", spEm ? 1.0 : 0.0);
        if (rule == AnswerRule.HOTPOT) {
            double p = f1.precision() * sp.precision();
            double r = f1.recall() * sp.recall();
            c.put("joint_f1", p + r > 0 ? 2 * p * r / (p + r) : 0.0);
            c.put("joint_em", em && spEm ? 1.0 : 0.0);
        }
        c.put("efficiency", answered ? ShapingRewards.efficiency(o.toolCalls(), gold.hops(), gold.hops() + settings.efficiencySlack()) : 0.0);
        c.put("format", o.formatScore());
        c.put("tool_call", ShapingRewards.toolCall(o.toolCalls(), o.toolSuccesses(), false));
        c.put("hops", (double) o.toolCalls());
        return c;
    }
}
