package dev.agentswarm.environments.code;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.environments.EpisodeOutcome;
import dev.agentswarm.environments.Noise;
import dev.agentswarm.environments.OracleRun;
import dev.agentswarm.environments.Split;
import dev.agentswarm.environments.SuiteCatalog;
import dev.agentswarm.core.reward.RewardWeights;
import dev.agentswarm.sandbox.Sandbox;
import dev.agentswarm.sandbox.SandboxSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CodeSuiteTest {

    private static final EpisodeSpec DEFAULTS = EpisodeSpec.fromConfig(ConfigFactory.load().getConfig("agentswarm.episode"));
    private final CodeSuite suite = (CodeSuite) SuiteCatalog.one(ConfigFactory.load(), "code");

    @Test
    void theBuiltInProblemsSplitIntoDisjointTrainAndHeldOutSets() {
        List<Task> train = suite.tasks(Split.TRAIN, 1000);
        List<Task> heldout = suite.tasks(Split.HELDOUT, 1000);
        assertEquals(train, suite.tasks(Split.TRAIN, 1000));
        assertTrue(train.size() + heldout.size() >= 60, "all problems are used");
        assertTrue(heldout.size() >= 6 && heldout.size() <= 20, "about one in five held out, got " + heldout.size());
        Set<String> ids = new HashSet<>();
        for (Task t : train) ids.add(t.id());
        for (Task t : heldout) {
            assertFalse(ids.contains(t.id()));
            assertEquals("heldout", t.metadata().get(Task.SPLIT));
            assertEquals("code", t.suite());
        }
        Task t = train.get(0);
        assertTrue(t.prompt().contains("```python") && t.prompt().contains(t.metadata().get(CodeSuite.ENTRY_POINT)), t.prompt());
        for (Task any : train) {
            for (String test : suite.problem(any).tests()) assertFalse(any.prompt().contains(test), "hidden tests stay hidden: " + test);
        }
    }

    @Test
    void theOracleSolvesEveryProblemThroughThePythonTool() {
        for (Split split : Split.values()) {
            for (Task t : suite.tasks(split, 1000)) {
                Trajectory done = OracleRun.run(suite, t, DEFAULTS, Noise.NONE);
                Map<String, Double> c = done.reward().components();
                assertEquals(1.0, c.get("pass"), t.id() + " " + c);
                assertEquals(1.0, c.get("tests_passed"), t.id());
                assertEquals(1.2, done.reward().total(), 1e-9, "all tests + 0.1 format + 0.1 tool call");
                assertEquals(1, done.stats().toolSuccesses(), t.id());
                assertTrue(done.turns().get(1).text().contains("example passed"), t.id() + ": " + done.turns().get(1).text());
            }
        }
    }

    @Test
    void noisyDemonstrationsSeeTheirDraftFailAndStillPass() {
        Noise noisy = new Noise(1, 1, 1);
        for (Task t : suite.tasks(Split.TRAIN, 5)) {
            Trajectory done = OracleRun.run(suite, t, DEFAULTS, noisy);
            assertEquals(1.0, done.reward().components().get("pass"), t.id());
            assertEquals(3, done.stats().toolCalls(), "a wasted call, a failing draft, the real check");
            assertTrue(done.turns().get(3).text().contains("AssertionError"), done.turns().get(3).text());
            assertTrue(done.turns().get(0).text().contains("carefully"));
        }
    }

    private final CodeSuite small = new CodeSuite(CodeProblem.load(Path.of("src/test/resources/code/problems-small.jsonl")), 2, 6, 1.0,
            RewardWeights.fromConfig(ConfigFactory.load().getConfig("agentswarm.environments.code.reward")),
            () -> Sandbox.shared(SandboxSettings.fromConfig(ConfigFactory.load().getConfig("agentswarm.sandbox"))));
    private final CodeProblem addOne = CodeGraderTest.problem("add_one");

    private RewardBreakdown score(String answer, int toolCalls) {
        return small.grade(addOne, new EpisodeOutcome(answer, 2, toolCalls, toolCalls, 0)).toCompletableFuture().join();
    }

    @Test
    void aWrongAnswerEarnsTheShareOfTestsItPassesAndMalformedAnswersEarnNothing() {
        String fenced = "Here it is.\n```python\n" + addOne.solution() + "```";
        assertEquals(1.2, score(fenced, 1).total(), 1e-9);
        assertEquals(1.1, score(fenced, 0).total(), 1e-9, "no tool call, no bonus");
        RewardBreakdown bare = score(addOne.solution(), 1);
        assertEquals(1.0, bare.components().get("pass"), "unfenced code is still graded");
        assertEquals(0.0, bare.components().get("format"), "but not in the asked form");
        RewardBreakdown partial = score("```python\ndef add_one(x):\n    return x + 1 if x >= 0 else x\n```", 1);
        assertEquals(0.75, partial.components().get("tests_passed"));
        assertEquals(0.0, partial.components().get("pass"));
        assertEquals(0.75 + 0.1 + 0.1, partial.total(), 1e-9);
        for (String malformed : List.of("", "I could not solve it.", "```python\ndef add_one(:\n```", "```json\n{\"code\": 1}\n```")) {
            RewardBreakdown r = score(malformed, 1);
            assertEquals(0.0, r.components().get("tests_passed"), malformed);
            assertEquals(0.0, r.components().get("pass"), malformed);
        }
        RewardBreakdown none = small.grade(addOne, new EpisodeOutcome(null, 6, 3, 3, 0)).toCompletableFuture().join();
        assertEquals(0.1, none.total(), 1e-9, "ran out of turns: only the tool-call bonus");
    }

    @Test
    void badProblemFilesAndWeightsAreRefusedWithWhere(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("p.jsonl");
        Files.writeString(file, "{\"id\": \"a\", \"entry_point\": \"f\", \"prompt\": \"p\", \"tests\": [\"assert f(1) == 1\"], \"solution\": \"s\"}\n"
                + "{\"id\": \"b\", \"entry_point\": \"1f\", \"prompt\": \"p\", \"tests\": [\"assert f(1) == 1\"], \"solution\": \"s\"}\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CodeProblem.load(file));
        assertTrue(e.getMessage().contains("p.jsonl:2") && e.getMessage().contains("not a Python name"), e.getMessage());
        Files.writeString(file, "{\"id\": \"a\", \"entry_point\": \"f\", \"prompt\": \"p\", \"tests\": [\"f(1) == 1\"], \"solution\": \"s\"}\n");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CodeProblem.load(file)).getMessage().contains("one `assert"));
        var config = ConfigFactory.parseString("agentswarm.environments.code.reward { tests_pased = 1 }").withFallback(ConfigFactory.load());
        IllegalArgumentException weights = assertThrows(IllegalArgumentException.class, () -> SuiteCatalog.one(config, "code"));
        assertTrue(weights.getMessage().contains("tests_pased"), weights.getMessage());
    }
}
