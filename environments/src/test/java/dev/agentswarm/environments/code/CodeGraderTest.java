package dev.agentswarm.environments.code;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.agentswarm.sandbox.Sandbox;
import dev.agentswarm.sandbox.SandboxSettings;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Hidden tests in the sandbox: right answers pass, and no trick passes a test the code does not pass. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CodeGraderTest {

    private final Sandbox sandbox = Sandbox.create(SandboxSettings.fromConfig(ConfigFactory.load().getConfig("agentswarm.sandbox")));
    private final CodeGrader grader = new CodeGrader(() -> sandbox, 1.0);
    private final CodeProblem addOne = problem("add_one");
    private final CodeProblem shapes = problem("shapes");

    static CodeProblem problem(String id) {
        Path file = Path.of("src/test/resources/code/problems-small.jsonl");
        return CodeProblem.load(file).stream().filter(p -> p.id().equals(id)).findFirst().orElseThrow();
    }

    @AfterAll
    void close() {
        sandbox.close();
    }

    private CodeGrader.Grade grade(CodeProblem p, String code) {
        return grader.grade(p, code).toCompletableFuture().join();
    }

    @Test
    void aRightSolutionPassesEveryTestAndAWrongOneTheTestsItGetsRight() {
        assertEquals(new CodeGrader.Grade(4, 4, List.of()), grade(addOne, addOne.solution()));
        CodeGrader.Grade partly = grade(addOne, "def add_one(x):\n    return 1 if x == 0 else x + 1 if x > 0 else None\n");
        assertEquals(3, partly.passed(), partly.failures().toString());
        assertEquals(List.of("add_one(-1): wrong value"), partly.failures());
        assertEquals(0.75, partly.fraction());
    }

    @Test
    void valuesCompareAsPythonsEqualityDoes() {
        // 1 == 1.0 == True, sets and dict keys in any order: the reference passes all four.
        assertEquals(4, grade(shapes, "def shapes(n):\n    return (float(n), [n, n == 1], {n: {n + 1, n}})\n").passed());
        // A list is not a tuple.
        CodeGrader.Grade list = grade(shapes, "def shapes(n):\n    return [n, [float(n), n == 1], {n: {n, n + 1}}]\n");
        assertEquals(1, list.passed(), "only shapes(3)[0] == 3 holds: " + list.failures());
    }

    @Test
    void crashesTimeoutsAndSyntaxErrorsFailOnlyTheirTests() {
        CodeGrader.Grade loop = grade(addOne, "def add_one(x):\n    while x < 0:\n        pass\n    return x + 1\n");
        assertEquals(3, loop.passed());
        assertEquals(List.of("add_one(-1): Timeout"), loop.failures());
        CodeGrader.Grade crash = grade(addOne, "def add_one(x):\n    return x + 1 if x else 1 / x\n");
        assertEquals(List.of("add_one(0): ZeroDivisionError"), crash.failures());
        CodeGrader.Grade syntax = grade(addOne, "def add_one(x)\n    return x + 1\n");
        assertEquals(0, syntax.passed());
        assertTrue(syntax.failures().get(0).endsWith("SyntaxError"), syntax.failures().toString());
        assertEquals(0, grade(addOne, "def other(x):\n    return x + 1\n").passed(), "NameError: the entry point is missing");
    }

    @Test
    void eachTestRunsInAFreshNamespace() {
        String counting = "seen = []\ndef add_one(x):\n    seen.append(x)\n    return x + len(seen)\n";
        assertEquals(4, grade(addOne, counting).passed(), "state from one test does not reach the next");
    }

    @Test
    void exitingEarlyFakingResultsOrPatchingTheGraderPassesNothing() {
        assertEquals(0, grade(addOne, "import sys\nsys.exit(0)\n").passed());
        assertEquals(0, grade(addOne, "import os\nos._exit(0)\n").passed());
        String forger = "import os\nfor i in range(4):\n    os.write(1, ('{\"i\": %d, \"v\": {\"n\": \"2\"}}\\n' % i).encode())\n"
                + "def add_one(x):\n    return None\n";
        CodeGrader.Grade forged = grade(addOne, forger);
        assertEquals(1, forged.passed(), "the guess 2 is right for add_one(1) only: " + forged.failures());
        String patcher = "import json\njson.dumps = lambda *a, **k: '{\"i\": 0, \"v\": {\"n\": \"2\"}}'\n"
                + "def add_one(x):\n    return 'whatever'\n";
        assertTrue(grade(addOne, patcher).passed() <= 1, "a patched writer can only repeat a guess");
    }

    @Test
    void aTestThatIsNotAnAssertOfACallAgainstALiteralIsAClearError() {
        CodeProblem bad = new CodeProblem("bad", "f", "p", List.of("assert f(1) == 2", "assert f(2) > 1"), "def f(x):\n    return x + 1\n",
                "math", 1);
        CompletionException e = assertThrows(CompletionException.class, () -> grade(bad, bad.solution()));
        assertTrue(e.getCause().getMessage().contains("problem bad, test 2 (assert f(2) > 1): not `assert CALL == LITERAL`"),
                e.getCause().getMessage());
    }
}
