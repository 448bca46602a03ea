package dev.agentswarm.workers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.EpisodeHistory;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.tool.CalculatorTool;
import dev.agentswarm.core.tool.ToolRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CompletionSourceTest {

    private final EpisodeSpec spec = EpisodeSpec.fromConfig(ConfigFactory.load().getConfig("agentswarm.episode"))
            .withTools(List.of("calculator"));
    private final List<Message> context = List.of(Message.system("s"), Message.user("2+2?"));

    private CompletionSource source(Policy policy, List<EpisodeHistory.Step> history, PolicyRetry retry) {
        EpisodeSetup setup = new EpisodeSetup(spec, policy, ToolRegistry.of(new CalculatorTool()));
        return new CompletionSource(policy, setup, spec, "ep-1", history, retry);
    }

    @Test
    void aTurnMayGenerateNoMoreThanTheTokenBudgetLeft() {
        CompletionSource s = source(req -> null, List.of(), new PolicyRetry(0, Duration.ZERO));
        int maxTokens = spec.sampling().maxTokens();
        CompletionRequest roomy = s.request(3, context, 0);
        assertEquals(maxTokens, roomy.sampling().maxTokens());
        assertEquals("ep-1", roomy.episodeId());
        assertEquals(3, roomy.turn());
        assertEquals(context, roomy.messages());
        CompletionRequest tight = s.request(3, context, spec.tokenBudget() - 5);
        assertEquals(Math.min(5, maxTokens), tight.sampling().maxTokens());
    }

    @Test
    void aPolicyThatThrowsOrAnswersNothingFailsTheAnswerNotTheCaller() {
        CompletionSource none = source(req -> null, List.of(), new PolicyRetry(0, Duration.ZERO));
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> none.answer(none.request(1, context, 0), null).get());
        assertEquals("the policy returned no answer stage", e.getCause().getMessage());
        CompletionSource throwing = source(req -> { throw new IllegalStateException("boom"); }, List.of(),
                new PolicyRetry(0, Duration.ZERO));
        assertTrue(throwing.answer(throwing.request(1, context, 0), null).isCompletedExceptionally());
    }

    @Test
    void aResumedEpisodesRecordedTurnsAreNotAskedAgain() {
        Completion before = Completion.ofText("<answer>4</answer>", 5, 3);
        EpisodeHistory.Step step = new EpisodeHistory.Step(before, List.of());
        CompletionSource s = source(req -> CompletableFuture.failedFuture(new AssertionError("asked")), List.of(step),
                new PolicyRetry(0, Duration.ZERO));
        assertSame(step, s.recorded(1));
        assertNull(s.recorded(2), "past the history the turns are live");
        assertEquals(before, s.answer(s.request(1, context, 0), s.recorded(1)).join());
    }

    @Test
    void theSameTurnIsAskedAgainWhileRetriesAndTheDeadlineAllow() {
        CompletionSource s = source(req -> null, List.of(), new PolicyRetry(2, Duration.ofMillis(10)));
        long farOff = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        assertNotNull(s.retryAfter("down", farOff));
        assertEquals("down", s.failing());
        s.retryEnded();
        assertNull(s.failing());
        assertNotNull(s.retryAfter("down again", farOff));
        assertNull(s.retryAfter("still down", farOff), "two retries a turn, then the episode ends");
        assertEquals(2, s.retries());
        s.answered();
        assertEquals(0, s.retries(), "the next turn has retries of its own");
        assertNull(s.retryAfter("down", System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1)),
                "a wait the deadline would cut short is not begun");
        assertEquals(0, s.retries());
    }
}
