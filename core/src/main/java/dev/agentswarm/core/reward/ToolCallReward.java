package dev.agentswarm.core.reward;

/**
 * Seed 002's tool call reward, as its framework computes it (Open-AgentRL
 * {@code recipe/demystify/reward.py compute_score}, from verl's ReTool recipe): a right answer
 * scores {@code correct} (+1); a wrong one scores {@code wrong} (−1) plus {@code perRound} (0.1) for
 * every tool-call round, but never more than {@code wrongCap} (−0.6). Trying tools thus lifts a wrong
 * answer from −1 up to −0.6 at 4 rounds, which keeps a gradient towards tool use after the policy
 * stops calling them (the "exploration collapse" the seed names), while a wrong answer always stays
 * below any right one.
 *
 * <p>A round is one assistant turn whose tool calls were answered: verl's {@code num_turns} counts
 * the prompt, each assistant turn and each tool-response turn, and the recipe's
 * {@code (num_turns − 2) / 2} is that number of rounds.
 */
public record ToolCallReward(double correct, double wrong, double perRound, double wrongCap) {

    /** The recipe's constants: +1, −1, 0.1 a round, at most −0.6. */
    public static final ToolCallReward DEFAULT = new ToolCallReward(1.0, -1.0, 0.1, -0.6);

    public ToolCallReward {
        if (!Double.isFinite(correct) || !Double.isFinite(wrong) || !Double.isFinite(perRound) || !Double.isFinite(wrongCap)) {
            throw new IllegalArgumentException("tool call reward parameters must be finite");
        }
        if (perRound < 0) throw new IllegalArgumentException("perRound must be >= 0, got " + perRound);
        if (!(wrong <= wrongCap && wrongCap < correct)) {
            throw new IllegalArgumentException("need wrong <= wrongCap < correct, got " + wrong + ", " + wrongCap + ", " + correct);
        }
    }

    /** The episode's reward from its outcome and its number of tool-call rounds. */
    public double score(boolean answerCorrect, int toolCallRounds) {
        if (toolCallRounds < 0) throw new IllegalArgumentException("toolCallRounds must be >= 0, got " + toolCallRounds);
        if (answerCorrect) return correct;
        return Math.min(wrongCap, wrong + perRound * toolCallRounds);
    }

    /** The part of {@link #score} that tool use added: 0 for a right answer. */
    public double bonus(boolean answerCorrect, int toolCallRounds) {
        return score(answerCorrect, toolCallRounds) - (answerCorrect ? correct : wrong);
    }
}
