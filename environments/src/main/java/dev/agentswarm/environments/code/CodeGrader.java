package dev.agentswarm.environments.code;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.sandbox.Execution;
import dev.agentswarm.sandbox.Language;
import dev.agentswarm.sandbox.Sandbox;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Runs a solution against a problem's hidden tests in a fresh sandbox, each test in a fresh
 * namespace with its own time limit. A test {@code assert CALL == LITERAL} is split (once per
 * problem, by a trusted run that sees no solution) into the call and the literal's value; the
 * solution's run only evaluates the calls, and the values are compared here. So a solution that
 * exits early, prints fake results or patches the grader cannot pass a test it does not pass:
 * the values it should produce never reach its sandbox.
 */
public final class CodeGrader {

    static final String PROGRAM = resource("/dev/agentswarm/environments/code/grader.py");

    /** One hidden test: the call to evaluate and the canonical value it must give. */
    record Check(String call, JsonNode expected) {}

    /** How a solution did: tests passed of those run, and a line for each failure. */
    public record Grade(int passed, int total, List<String> failures) {
        public double fraction() {
            return total == 0 ? 0 : (double) passed / total;
        }
    }

    private final Supplier<Sandbox> sandbox;
    private final double secondsPerTest;
    private final Map<String, CompletableFuture<List<Check>>> checks = new ConcurrentHashMap<>();

    public CodeGrader(Supplier<Sandbox> sandbox, double secondsPerTest) {
        if (!(secondsPerTest > 0)) throw new IllegalArgumentException("code: seconds-per-test must be > 0, got " + secondsPerTest);
        this.sandbox = sandbox;
        this.secondsPerTest = secondsPerTest;
    }

    /** Grades {@code code} against the tests of {@code problem}. */
    public CompletionStage<Grade> grade(CodeProblem problem, String code) {
        return checks(problem).thenCompose(cs -> {
            ObjectNode request = Json.object().put("mode", "run").put("solution", code).put("seconds", secondsPerTest);
            cs.forEach(c -> request.withArray("calls").add(c.call()));
            return sandbox.get().run(Language.PYTHON, PROGRAM, Json.write(request)).thenApply(e -> compare(cs, e));
        });
    }

    /** The checks of a problem's tests, from one trusted run the first time; a failed run is tried again next time. */
    CompletionStage<List<Check>> checks(CodeProblem problem) {
        return checks.compute(problem.id(), (id, known) -> known != null && !known.isCompletedExceptionally() ? known : readChecks(problem));
    }

    private CompletableFuture<List<Check>> readChecks(CodeProblem problem) {
        ObjectNode request = Json.object().put("mode", "expected");
        problem.tests().forEach(request.putObject("problems").withArray(problem.id())::add);
        try {
            return sandbox.get().run(Language.PYTHON, PROGRAM, Json.write(request)).thenApply(e -> parseChecks(problem, e))
                    .toCompletableFuture();
        } catch (RuntimeException e) { // no sandbox here
            return CompletableFuture.failedFuture(e);
        }
    }

    static List<Check> parseChecks(CodeProblem problem, Execution e) {
        JsonNode all;
        try {
            all = e.ok() ? Json.parse(e.stdout()).path("checks").path(problem.id()) : null;
        } catch (IOException parse) {
            all = null;
        }
        if (all == null || all.size() != problem.tests().size()) {
            throw new IllegalStateException("could not read the tests of problem " + problem.id() + ": " + e);
        }
        List<Check> out = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            JsonNode c = all.get(i);
            if (c.has("error")) {
                throw new IllegalArgumentException("problem " + problem.id() + ", test " + (i + 1) + " (" + problem.tests().get(i) + "): "
                        + c.get("error").asText());
            }
            out.add(new Check(c.get("call").asText(), c.get("expected")));
        }
        return List.copyOf(out);
    }

    /** The first result line of each test counts; a test without one (killed, cut, exited) failed. */
    static Grade compare(List<Check> checks, Execution e) {
        Map<Integer, JsonNode> results = new HashMap<>();
        for (String line : e.stdout().split("\n")) {
            if (line.isBlank()) continue;
            try {
                JsonNode r = Json.parse(line);
                int i = r.path("i").asInt(-1);
                if (i >= 0 && i < checks.size()) results.putIfAbsent(i, r);
            } catch (IOException notJson) {
                // a cut last line
            }
        }
        int passed = 0;
        List<String> failures = new ArrayList<>();
        for (int i = 0; i < checks.size(); i++) {
            Check c = checks.get(i);
            JsonNode r = results.get(i);
            if (r != null && r.has("v") && r.get("v").equals(c.expected())) {
                passed++;
            } else if (r == null) {
                failures.add(c.call() + ": no result" + (e.limit() == Execution.Limit.NONE ? "" : " (" + e.limit() + ")"));
            } else if (r.has("error")) {
                failures.add(c.call() + ": " + r.get("error").asText());
            } else {
                failures.add(c.call() + ": wrong value");
            }
        }
        return new Grade(passed, checks.size(), List.copyOf(failures));
    }

    private static String resource(String name) {
        try (InputStream in = CodeGrader.class.getResourceAsStream(name)) {
            if (in == null) throw new IllegalStateException("resource " + name + " is missing from the build");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
