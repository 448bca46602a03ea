package dev.agentswarm.core.reward;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.protocol.ToolCall;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Seed 003's turn-level partial credit, as the tau2 recipe of its framework computes it (slime
 * {@code examples/tau-bench/tau2/reward.py} and {@code env.py}): each kind of check of τ²-bench's
 * {@code reward_info} gives a progress, met / total (actions matched, information communicated,
 * environment assertions met, the end-state database matched), and
 * <pre>
 *   partial = Σ wₖ · progressₖ / Σ wₖ   over the kinds the task has checks of (0 when it has none)
 *   shaped  = task reward + α · partial
 * </pre>
 * with the recipe's weights action 0.5, env_assertion 0.35, communicate 0.15, db 0 and α = 0.25. A
 * long task whose agent did 4 of 5 right steps earns credit instead of τ²-bench's all-or-nothing 0,
 * which gives GRPO a gradient on hard tasks; the credit is only for required actions, never for
 * taking more turns (the cookbook saw that hacked by repeated calls).
 */
public final class TurnCredit {

    private TurnCredit() {}

    /** How many of a kind of check held; a kind with no checks ({@link #NONE}) is left out of the partial score. */
    public record Checks(int met, int total) {
        public static final Checks NONE = new Checks(0, 0);

        public Checks {
            if (total < 0 || met < 0 || met > total) throw new IllegalArgumentException("need 0 <= met <= total, got " + met + "/" + total);
        }

        public static Checks of(boolean held) {
            return new Checks(held ? 1 : 0, 1);
        }

        public double progress() {
            return total == 0 ? 0.0 : (double) met / total;
        }
    }

    /** Weights of the kinds of checks. */
    public record Weights(double action, double communicate, double envAssertion, double db) {
        /** The tau2 recipe's defaults. */
        public static final Weights DEFAULT = new Weights(0.5, 0.15, 0.35, 0.0);

        public Weights {
            for (double w : new double[] {action, communicate, envAssertion, db}) {
                if (!(w >= 0) || Double.isInfinite(w)) throw new IllegalArgumentException("check weights must be finite and >= 0, got " + w);
            }
        }
    }

    /** The tau2 recipe's shaping coefficient α. */
    public static final double ALPHA = 0.25;

    /**
     * The weighted mean progress over the kinds of checks the task has (weights renormalised over
     * them, so a task without communication checks is not capped at 0.85); 0 when it has none, or
     * when the kinds it has all weigh 0.
     */
    public static double partialScore(Checks actions, Checks communicate, Checks envAssertions, Checks db, Weights w) {
        double sum = 0;
        double weight = 0;
        Checks[] kinds = {actions, communicate, envAssertions, db};
        double[] weights = {w.action(), w.communicate(), w.envAssertion(), w.db()};
        for (int i = 0; i < kinds.length; i++) {
            if (kinds[i].total() == 0) continue;
            sum += weights[i] * kinds[i].progress();
            weight += weights[i];
        }
        return weight > 0 ? sum / weight : 0.0;
    }

    /** The shaped training reward: task reward + α · partial score. */
    public static double shaped(double taskReward, double partialScore, double alpha) {
        return taskReward + alpha * partialScore;
    }

    /**
     * τ²-bench's communicate checks: an item is met when, lower-cased, it occurs in some assistant
     * message lower-cased with its commas removed.
     */
    public static Checks communicated(List<String> required, List<String> assistantMessages) {
        int met = 0;
        for (String info : required) {
            String want = info.toLowerCase(Locale.ROOT);
            for (String m : assistantMessages) {
                if (m != null && m.toLowerCase(Locale.ROOT).replace(",", "").contains(want)) {
                    met++;
                    break;
                }
            }
        }
        return new Checks(met, required.size());
    }

    /**
     * The action checks: each expected action is matched by a performed call of the same name whose
     * arguments equal (as JSON) the expected ones on the keys the expected action names, so incidental
     * arguments do not matter (τ²-bench's {@code compare_args}). A call matches one expected action at
     * most: an action the task needs twice must be done twice.
     */
    public static Checks actionChecks(List<ToolCall> expected, List<ToolCall> performed) {
        List<ToolCall> left = new ArrayList<>(performed);
        int matched = 0;
        for (ToolCall want : expected) {
            for (Iterator<ToolCall> it = left.iterator(); it.hasNext(); ) {
                if (matches(want, it.next())) {
                    it.remove();
                    matched++;
                    break;
                }
            }
        }
        return new Checks(matched, expected.size());
    }

    /**
     * @param expected the actions the task requires (see {@link #actionChecks})
     * @return matched / expected, 1 when nothing is expected
     */
    public static double actions(List<ToolCall> expected, List<ToolCall> performed) {
        return expected.isEmpty() ? 1.0 : actionChecks(expected, performed).progress();
    }

    private static boolean matches(ToolCall want, ToolCall got) {
        if (!want.name().equals(got.name())) return false;
        JsonNode w = want.arguments();
        if (w == null || !w.isObject()) return true;
        JsonNode g = got.arguments();
        for (Iterator<Map.Entry<String, JsonNode>> it = w.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (g == null || !e.getValue().equals(g.get(e.getKey()))) return false;
        }
        return true;
    }
}
