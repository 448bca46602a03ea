package dev.agentswarm.environments.arithmetic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.environments.Noise;
import dev.agentswarm.environments.OracleRun;
import dev.agentswarm.environments.Split;
import dev.agentswarm.environments.SuiteCatalog;
import java.math.BigDecimal;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ArithmeticSuiteTest {

    private static final EpisodeSpec DEFAULTS = EpisodeSpec.fromConfig(ConfigFactory.load().getConfig("agentswarm.episode"));
    private final ArithmeticSuite suite = (ArithmeticSuite) SuiteCatalog.one(ConfigFactory.load(), "arithmetic");

    @Test
    void theSameSeedGivesTheSameTasksAndTheSplitsAreDisjoint() {
        List<Task> train = suite.tasks(Split.TRAIN, 200);
        assertEquals(train, suite.tasks(Split.TRAIN, 200));
        List<Task> heldout = suite.tasks(Split.HELDOUT, 100);
        Set<String> trainExpressions = new HashSet<>();
        for (Task t : train) trainExpressions.add(t.metadata().get("expression"));
        for (Task t : heldout) {
            assertFalse(trainExpressions.contains(t.metadata().get("expression")), t.id());
            assertEquals("heldout", t.metadata().get(Task.SPLIT));
            assertEquals("arithmetic", t.suite());
        }
        // The answer is the exact value of the expression.
        Task first = train.get(0);
        assertEquals(0, new BigDecimal(first.answer()).compareTo(
                dev.agentswarm.core.tool.ArithmeticExpression.evaluate(first.metadata().get("expression"))));
    }

    @Test
    void theOracleSolvesEveryTaskThroughTheCalculator() {
        for (Split split : Split.values()) {
            for (Task t : suite.tasks(split, 50)) {
                Trajectory done = OracleRun.run(suite, t, DEFAULTS, Noise.NONE);
                assertEquals(1.0, done.reward().components().get("pass"), t.id() + ": " + done.finalAnswer() + " vs " + t.answer());
                assertEquals(1.2, done.reward().total(), 1e-9, "correct + 0.1 format + 0.1 tool call");
                assertEquals(1, done.stats().toolCalls());
            }
        }
    }

    @Test
    void noisyDemonstrationsWasteCallsButStillSucceed() {
        Noise noisy = new Noise(1, 1, 1);
        int extraCalls = 0;
        for (Task t : suite.tasks(Split.TRAIN, 30)) {
            Trajectory done = OracleRun.run(suite, t, DEFAULTS, noisy);
            assertEquals(1.0, done.reward().components().get("correct"), t.id());
            extraCalls += done.stats().toolCalls() - 1;
            assertTrue(done.turns().get(0).text().contains("carefully"), "filler in the thought");
        }
        assertTrue(extraCalls >= 30, "every noisy demonstration makes at least one extra call, got " + extraCalls);
    }

    @Test
    void anAnswerListingSeveralNumbersEarnsNothing() {
        BigDecimal gold = new BigDecimal("42");
        assertTrue(NumericAnswer.matches("42", gold));
        assertTrue(NumericAnswer.matches("The result is 42.0000001", gold));
        assertFalse(NumericAnswer.matches("41 or 42", gold));
        assertFalse(NumericAnswer.matches("forty-two", gold));
        assertTrue(NumericAnswer.matches("1,234,567", new BigDecimal("1234567")));
        assertNull(NumericAnswer.single(null));
        // 1e-6 relative: a repeating fraction rounded to 8 places still counts, to 2 places does not.
        BigDecimal third = new BigDecimal("33.333333333333333333");
        assertTrue(NumericAnswer.matches("33.33333333", third));
        assertFalse(NumericAnswer.matches("33.33", third));
    }

    @Test
    void badConfigurationIsRefusedByName() {
        var weights = new dev.agentswarm.core.reward.RewardWeights(java.util.Map.of("corect", 1.0));
        var e = assertThrows(IllegalArgumentException.class, () -> new ArithmeticSuite(1, 3, 6, 6, weights));
        assertTrue(e.getMessage().contains("corect"), e.getMessage());
        var ops = assertThrows(IllegalArgumentException.class,
                () -> new ArithmeticSuite(1, 5, 2, 6, new dev.agentswarm.core.reward.RewardWeights(java.util.Map.of())));
        assertTrue(ops.getMessage().contains("min-ops"), ops.getMessage());
    }

    @Test
    void aTaskWithoutAnAnswerCannotBeOpened() {
        var e = assertThrows(IllegalArgumentException.class, () -> suite.open(Task.of("x", "What is 2+2?"), "ep"));
        assertTrue(e.getMessage().contains("no answer"), e.getMessage());
    }
}
