package dev.agentswarm.environments.code;

import com.typesafe.config.Config;
import dev.agentswarm.core.environment.TaskEnvironment;
import dev.agentswarm.core.format.HermesFormat;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.reward.RewardWeights;
import dev.agentswarm.core.reward.ShapingRewards;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.environments.EpisodeOutcome;
import dev.agentswarm.environments.Oracle;
import dev.agentswarm.environments.Split;
import dev.agentswarm.environments.Suite;
import dev.agentswarm.sandbox.CodeTools;
import dev.agentswarm.sandbox.Sandbox;
import dev.agentswarm.sandbox.SandboxSettings;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * Write a Python function; it is graded on hidden unit tests in the sandbox (seed 000's coding
 * mode, "dry-run success"). The episode may run code in its own session with the {@code python}
 * tool. Components: {@code tests_passed} (the share of hidden tests passed), {@code pass} (1 only
 * when all pass), {@code format} (well-formed turns, and 0 unless the answer holds the function in
 * a fenced python block) and {@code tool_call} (seed 002's bonus for calling the tool at all).
 */
public final class CodeSuite implements Suite {

    public static final String NAME = "code";
    static final Set<String> COMPONENTS = Set.of("tests_passed", "pass", "format", "tool_call");
    static final String ENTRY_POINT = "entry_point";
    private static final String SYSTEM = "You are a coding agent. You write Python functions, run them in an isolated sandbox with"
            + " the python tool to check them on examples, fix what fails, and answer with the finished function.";

    private final List<CodeProblem> problems;
    private final Map<String, CodeProblem> byTaskId = new LinkedHashMap<>();
    private final int heldoutOneIn;
    private final int maxTurns;
    private final RewardWeights weights;
    private final CodeGrader grader;
    private final Tool python;

    /**
     * @param sandbox made on first use, so a machine without bubblewrap can still list the suite;
     *     its episodes then fail to score with the sandbox's message on how to fix it
     */
    public CodeSuite(List<CodeProblem> problems, int heldoutOneIn, int maxTurns, double secondsPerTest, RewardWeights weights,
                     java.util.function.Supplier<Sandbox> sandbox) {
        if (maxTurns < 2) throw new IllegalArgumentException("code: max-turns must be >= 2, got " + maxTurns);
        weights.requireKnown(NAME, COMPONENTS);
        this.problems = List.copyOf(problems);
        for (CodeProblem p : problems) byTaskId.put(taskId(p), p);
        Split.byHash("x", heldoutOneIn); // refuses a share that leaves nothing to train on
        this.heldoutOneIn = heldoutOneIn;
        this.maxTurns = maxTurns;
        this.weights = weights;
        this.grader = new CodeGrader(sandbox, secondsPerTest);
        this.python = new CodeTools(sandbox).python();
    }

    /** From an {@code agentswarm.environments.code} block; the sandbox is the node's ({@code agentswarm.sandbox} of {@code root}). */
    public static CodeSuite fromConfig(Config c, Config root) {
        String file = c.getString("problems");
        SandboxSettings settings = SandboxSettings.fromConfig(root.getConfig("agentswarm.sandbox"));
        return new CodeSuite(CodeProblem.load(file.isBlank() ? null : Path.of(file)), c.getInt("heldout-one-in"), c.getInt("max-turns"),
                c.getDouble("seconds-per-test"), RewardWeights.fromConfig(c.getConfig("reward")), () -> Sandbox.shared(settings));
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "write a Python function, graded on hidden unit tests in the sandbox (" + problems.size() + " problems)";
    }

    @Override
    public List<Task> tasks(Split split, int limit) {
        return problems.stream().filter(p -> Split.byHash(p.id(), heldoutOneIn) == split).limit(limit).map(p -> task(p, split)).toList();
    }

    private static String taskId(CodeProblem p) {
        return NAME + "/" + p.id();
    }

    private static Task task(CodeProblem p, Split split) {
        String prompt = p.prompt() + "\n\nWrite it in Python 3 with the standard library only. You may run code with the python tool"
                + " to test it. End with the complete function `" + p.entryPoint() + "` in one ```python block.";
        return new Task(taskId(p), prompt, p.solution(), Map.of(Task.SUITE, NAME, Task.SPLIT, split.label(), ENTRY_POINT, p.entryPoint(),
                "category", p.category(), "difficulty", Integer.toString(p.difficulty())));
    }

    /** The problem a task was made from. */
    CodeProblem problem(Task task) {
        CodeProblem p = byTaskId.get(task.id());
        if (p == null) throw new IllegalArgumentException("code task " + task.id() + " is not one of this suite's problems");
        return p;
    }

    @Override
    public EpisodeSpec spec(EpisodeSpec defaults) {
        return defaults.withFormat(HermesFormat.NAME).withTools(List.of(CodeTools.PYTHON)).withSystemPrompt(SYSTEM).withMaxTurns(maxTurns);
    }

    @Override
    public List<Tool> tools() {
        return List.of(python);
    }

    @Override
    public TaskEnvironment open(Task task, String episodeId) {
        CodeProblem p = problem(task);
        return new TaskEnvironment() {
            @Override
            public RewardBreakdown score(Trajectory t) {
                return scoreAsync(t).toCompletableFuture().join();
            }

            @Override
            public CompletionStage<RewardBreakdown> scoreAsync(Trajectory t) {
                return grade(p, EpisodeOutcome.of(t));
            }

            @Override
            public void close() {}
        };
    }

    /** The reward of an outcome: its answer's code graded on the hidden tests. */
    CompletionStage<RewardBreakdown> grade(CodeProblem p, EpisodeOutcome o) {
        CodeAnswer answer = CodeAnswer.find(o.answer(), p.entryPoint());
        CompletionStage<CodeGrader.Grade> grade = answer == null
                ? CompletableFuture.completedFuture(new CodeGrader.Grade(0, p.tests().size(), List.of("no code in the answer")))
                : grader.grade(p, answer.code());
        return grade.thenApply(g -> {
            Map<String, Double> c = new LinkedHashMap<>();
            c.put("tests_passed", g.fraction());
            c.put("pass", g.passed() == g.total() ? 1.0 : 0.0);
            c.put("format", answer != null && answer.asAsked() ? o.formatScore() : 0.0);
            c.put("tool_call", ShapingRewards.toolCall(o.toolCalls(), o.toolSuccesses(), false));
            return weights.combine(c);
        });
    }

    /** The grader, for tests and benchmarks that grade code directly. */
    public CodeGrader grader() {
        return grader;
    }

    @Override
    public List<String> reportColumns() {
        return List.of("pass", "tests_passed", "format", "tool_call");
    }

    @Override
    public String categoryKey() {
        return "category";
    }

    @Override
    public Optional<Oracle> oracle() {
        Function<Task, CodeProblem> problemOf = this::problem;
        return Optional.of(new CodeOracle(problemOf));
    }
}
