package dev.agentswarm.workers;

import dev.agentswarm.core.concurrent.Stages;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.EpisodeHistory;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.SamplingParams;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Where an episode's turn gets its completion: while a resumed episode replays its history, the step
 * recorded before the crash (the policy said this after the same context); otherwise the policy, asked
 * with the turn's context and the episode's sampling, its length capped at the token budget left. A
 * policy that throws or returns no stage fails the answer instead of the actor; one that failed for its
 * infrastructure is asked again as {@link PolicyRetry} says while the deadline allows. Plain code, so what
 * the policy is asked, and when again, is tested without an actor; the {@link EpisodeActor} only waits.
 */
final class CompletionSource {

    private final Policy policy;
    private final EpisodeSetup setup;
    private final EpisodeSpec spec;
    private final String episodeId;
    /** What the episode did before a crash: its steps replace the policy and the tools until they run out. */
    private final List<EpisodeHistory.Step> history;
    private final PolicyRetry retry;
    /** Retries of the current turn's policy call so far. */
    private int retries;
    /** Why the policy failed, while its retry waits for the backoff; null otherwise. */
    private String failing;

    CompletionSource(Policy policy, EpisodeSetup setup, EpisodeSpec spec, String episodeId, List<EpisodeHistory.Step> history,
                     PolicyRetry retry) {
        this.policy = policy;
        this.retry = retry;
        this.setup = setup;
        this.spec = spec;
        this.episodeId = episodeId;
        this.history = history;
    }

    /** The step recorded for {@code turn} (1-based) before a crash, or null when the turn is live. */
    EpisodeHistory.Step recorded(int turn) {
        return turn <= history.size() ? history.get(turn - 1) : null;
    }

    /** What the policy is asked on {@code turn}, with {@code budgetUsed} of the episode's token budget spent. */
    CompletionRequest request(int turn, List<Message> context, int budgetUsed) {
        int remaining = spec.tokenBudget() - budgetUsed;
        SamplingParams sampling = setup.sampling;
        SamplingParams turnSampling = remaining < sampling.maxTokens() ? sampling.withMaxTokens(remaining) : sampling;
        return new CompletionRequest(episodeId, turn, context,
                setup.format.nativeTools() ? setup.toolSpecs : List.of(), spec.toolChoice(), turnSampling);
    }

    /** The turn's completion: replayed from {@code replaying} when it is not null, else asked of the policy. */
    CompletableFuture<Completion> answer(CompletionRequest req, EpisodeHistory.Step replaying) {
        return replaying != null ? CompletableFuture.completedFuture(replaying.completion()) : ask(req);
    }

    /** The policy answered the turn: a later turn has its own retries. */
    void answered() {
        retries = 0;
    }

    /**
     * The policy failed the turn for its infrastructure ({@code why}): the wait before it is asked again, or
     * null when the retries are spent or the deadline ({@code deadlineAtNanos}) would pass first.
     */
    Duration retryAfter(String why, long deadlineAtNanos) {
        if (retries >= retry.attempts()) return null;
        Duration wait = retry.delay(retries, ThreadLocalRandom.current().nextDouble());
        if (System.nanoTime() + wait.toNanos() >= deadlineAtNanos) return null;
        retries++;
        failing = why;
        return wait;
    }

    /** Retries of the current turn so far, and how many it may have. */
    int retries() {
        return retries;
    }

    int attempts() {
        return retry.attempts();
    }

    /** Why the policy failed, while a retry waits; null when none does. */
    String failing() {
        return failing;
    }

    /** The retry's wait ended, or the episode did: no retry waits any more. */
    void retryEnded() {
        failing = null;
    }

    private CompletableFuture<Completion> ask(CompletionRequest req) {
        try {
            CompletionStage<Completion> stage = policy.complete(req);
            return stage == null ? CompletableFuture.failedFuture(new IllegalStateException("the policy returned no answer stage"))
                    : Stages.direct(stage);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
