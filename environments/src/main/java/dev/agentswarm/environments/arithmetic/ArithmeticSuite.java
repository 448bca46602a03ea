package dev.agentswarm.environments.arithmetic;

import com.typesafe.config.Config;
import dev.agentswarm.core.environment.TaskEnvironment;
import dev.agentswarm.core.format.HermesFormat;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.reward.RewardWeights;
import dev.agentswarm.core.reward.ShapingRewards;
import dev.agentswarm.core.tool.CalculatorTool;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.environments.EpisodeOutcome;
import dev.agentswarm.environments.Oracle;
import dev.agentswarm.environments.Split;
import dev.agentswarm.environments.Suite;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Multi-step arithmetic with a {@code calculator} tool. Components: {@code correct} (the answer
 * holds exactly one number and it equals the exact result, to 1e-6 relative), {@code format} (share
 * of well-formed assistant turns, 0 without a final answer), {@code tool_call} (seed 002's bonus for
 * calling a tool at all) and {@code pass} (= correct).
 */
public final class ArithmeticSuite implements Suite {

    public static final String NAME = "arithmetic";
    static final Set<String> COMPONENTS = Set.of("correct", "format", "tool_call", "pass");

    private final long seed;
    private final int minOps;
    private final int maxOps;
    private final String operators;
    private final int maxTurns;
    private final RewardWeights weights;
    private final Tool calculator = new CalculatorTool();

    public ArithmeticSuite(long seed, int minOps, int maxOps, int maxTurns, RewardWeights weights) {
        this(seed, minOps, maxOps, ArithmeticTasks.ALL_OPERATORS, maxTurns, weights);
    }

    /** @param operators the operators expressions draw from, some of {@code + - * /} */
    public ArithmeticSuite(long seed, int minOps, int maxOps, String operators, int maxTurns, RewardWeights weights) {
        if (operators.isEmpty() || !operators.chars().allMatch(ch -> ArithmeticTasks.ALL_OPERATORS.indexOf(ch) >= 0)) {
            throw new IllegalArgumentException("arithmetic: operators must be some of " + ArithmeticTasks.ALL_OPERATORS + ", got \""
                    + operators + "\"");
        }
        if (minOps < 1 || maxOps < minOps) {
            throw new IllegalArgumentException("arithmetic: need 1 <= min-ops <= max-ops, got " + minOps + ".." + maxOps);
        }
        if (maxTurns < 2) throw new IllegalArgumentException("arithmetic: max-turns must be >= 2, got " + maxTurns);
        weights.requireKnown(NAME, COMPONENTS);
        this.seed = seed;
        this.minOps = minOps;
        this.maxOps = maxOps;
        this.operators = operators;
        this.maxTurns = maxTurns;
        this.weights = weights;
    }

    /** From an {@code agentswarm.environments.arithmetic} block. */
    public static ArithmeticSuite fromConfig(Config c) {
        return new ArithmeticSuite(c.getLong("seed"), c.getInt("min-ops"), c.getInt("max-ops"), String.join("", c.getStringList("operators")),
                c.getInt("max-turns"),
                RewardWeights.fromConfig(c.getConfig("reward")));
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "multi-step arithmetic with a calculator tool; exact answers";
    }

    @Override
    public List<Task> tasks(Split split, int limit) {
        // Both splits draw from one stream of expressions; the hash of each decides its split.
        return ArithmeticTasks.generate(NAME, split, limit, seed, minOps, maxOps, operators);
    }

    @Override
    public EpisodeSpec spec(EpisodeSpec defaults) {
        return defaults.withFormat(HermesFormat.NAME)
                .withTools(List.of(CalculatorTool.NAME))
                .withSystemPrompt("You solve arithmetic problems exactly. Do not compute in your head: call the calculator,"
                        + " then answer with the number alone.")
                .withMaxTurns(maxTurns);
    }

    @Override
    public List<Tool> tools() {
        return List.of(calculator);
    }

    @Override
    public TaskEnvironment open(Task task, String episodeId) {
        if (task.answer() == null) throw new IllegalArgumentException("arithmetic task " + task.id() + " has no answer to score against");
        BigDecimal gold;
        try {
            gold = new BigDecimal(task.answer());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("arithmetic task " + task.id() + " has a non-numeric answer \"" + task.answer() + "\"");
        }
        return new TaskEnvironment() {
            @Override
            public RewardBreakdown score(Trajectory t) {
                EpisodeOutcome o = EpisodeOutcome.of(t);
                double correct = NumericAnswer.matches(o.answer(), gold) ? 1 : 0;
                Map<String, Double> c = new LinkedHashMap<>();
                c.put("correct", correct);
                c.put("format", o.formatScore());
                c.put("tool_call", ShapingRewards.toolCall(o.toolCalls(), o.toolSuccesses(), false));
                c.put("pass", correct);
                return weights.combine(c);
            }

            @Override
            public void close() {}
        };
    }

    @Override
    public List<String> reportColumns() {
        return List.of("pass", "correct", "format", "tool_call");
    }

    @Override
    public String categoryKey() {
        return "ops";
    }

    @Override
    public Optional<Oracle> oracle() {
        return Optional.of(new ArithmeticOracle());
    }
}
