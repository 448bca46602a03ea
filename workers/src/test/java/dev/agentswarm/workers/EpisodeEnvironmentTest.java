package dev.agentswarm.workers;

import static dev.agentswarm.workers.SwarmLinkTest.call;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.environment.TaskEnvironment;
import dev.agentswarm.core.protocol.InfraFailure;
import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.Trajectory;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** What each failure of a task's environment means for the episode. */
class EpisodeEnvironmentTest {

    /** A suite environment whose scorer never answers and whose limit check throws. */
    private static final class Stuck implements TaskEnvironment {
        int closed;

        @Override
        public boolean callsAreTheAnswer() {
            return true;
        }

        @Override
        public String limitReached() {
            throw new IllegalStateException("the orchestrator's counter is gone");
        }

        @Override
        public RewardBreakdown score(Trajectory trajectory) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletionStage<RewardBreakdown> scoreAsync(Trajectory trajectory) {
            return new CompletableFuture<>();
        }

        @Override
        public void close() {
            closed++;
        }
    }

    private final Trajectory done = Trajectory.notRun("ep-1", "g-1", "t-1", StopReason.FINAL_ANSWER, null);

    private EpisodeEnvironment of(TaskEnvironment environment) {
        return new EpisodeEnvironment(environment, "ep-1", LoggerFactory.getLogger(EpisodeEnvironmentTest.class));
    }

    @Test
    void theCallsAreTheAnswerAsFunctionCallingBenchmarksDecodeThem() {
        EpisodeEnvironment env = of(new Stuck());
        List<ToolCall> calls = List.of(call("c1", "calculator"), call("c2", "send"));
        assertEquals("[{\"calculator\":{\"expression\":\"2+2\"}},{\"send\":{\"to\":\"bob\"}}]", env.answerOf(calls));
        assertNull(env.answerOf(List.of()), "no calls, no answer");
        assertNull(of(null).answerOf(calls), "a task without an environment answers in words");
    }

    @Test
    void anEnvironmentThatFailsToSayItsLimitLetsTheEpisodeGoOn() {
        assertNull(of(new Stuck()).limitReached());
        assertNull(of(null).limitReached());
    }

    @Test
    void aScorerThatNeverAnswersFailsTheRewardAsAnInfrastructureFailure() {
        EpisodeEnvironment env = of(new Stuck());
        assertTrue(env.scores());
        CompletableFuture<RewardBreakdown> reward = env.score(done, 50);
        Throwable failure = reward.handle((r, e) -> e).join();
        Trajectory scored = env.scored(done, null, failure, 50);
        assertSame(InfraFailure.SCORER_FAILED, scored.infraFailure());
        assertNull(scored.reward(), "never a reward of 0 the policy did not earn");
        assertEquals("reward failed: scoring did not finish within tool-timeout (50 ms)", scored.error());

        RewardBreakdown earned = new RewardBreakdown(Map.of("correct", 1.0), 1.0);
        assertEquals(earned, env.scored(done, earned, null, 50).reward());
    }

    @Test
    void theEnvironmentIsClosedOnceAndThenNoLongerScores() {
        Stuck stuck = new Stuck();
        EpisodeEnvironment env = of(stuck);
        env.close();
        env.close();
        assertEquals(1, stuck.closed);
        assertFalse(env.scores());
        assertFalse(of(null).scores());
    }
}
