package dev.agentswarm.workers;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.agentswarm.core.environment.TaskEnvironment;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.InfraFailure;
import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.Trajectory;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;

/**
 * The task's suite environment as one episode uses it, with what each of its failures means: one that
 * fails to listen to the agent's calls or to say whether a limit was reached is logged and the episode
 * goes on; a scorer that fails or never answers ends the trajectory as an infrastructure failure
 * without a reward. A task without an environment ({@code environment} null) has no limits and no
 * score. Logs on the episode actor's logger, so its lines read as they always have.
 */
final class EpisodeEnvironment {

    private TaskEnvironment environment;
    private final String episodeId;
    private final Logger log;

    EpisodeEnvironment(TaskEnvironment environment, String episodeId, Logger log) {
        this.environment = environment;
        this.episodeId = episodeId;
        this.log = log;
    }

    /** Whether a finished episode is scored by its environment (until the environment is closed). */
    boolean scores() {
        return environment != null;
    }

    /** Why the task's own rules end the episode now, or null; an environment that fails to say lets it go on. */
    String limitReached() {
        if (environment == null) return null;
        try {
            return environment.limitReached();
        } catch (RuntimeException e) {
            log.warn("episode {}: its environment failed to say whether a limit was reached", episodeId, e);
            return null;
        }
    }

    /** The task's environment hears of the agent's calls before they run; its failure to listen does not stop the episode. */
    void agentCalls(String text, List<ToolCall> calls) {
        if (environment == null) return;
        try {
            environment.agentCalls(text, calls);
        } catch (RuntimeException e) {
            log.warn("episode {}: its environment failed to take the turn's calls", episodeId, e);
        }
    }

    /** The episode's answer when the task takes the agent's calls as its answer (function-calling benchmarks), or null. */
    String answerOf(List<ToolCall> calls) {
        return !calls.isEmpty() && environment != null && environment.callsAreTheAnswer() ? callsAsAnswer(calls) : null;
    }

    /** The calls as the answer: {@code [{"name": {arguments}}, ...]}, the form function-calling benchmarks decode calls into. */
    static String callsAsAnswer(List<ToolCall> calls) {
        ArrayNode out = Json.MAPPER.createArrayNode();
        for (ToolCall call : calls) out.addObject().set(call.name(), call.arguments());
        return Json.write(out);
    }

    /**
     * The reward of the finished trajectory {@code done}; bounded like a tool call ({@code timeoutMillis}), so a
     * scorer that never answers fails the reward, not the episode's slot.
     */
    CompletableFuture<RewardBreakdown> score(Trajectory done, long timeoutMillis) {
        CompletionStage<RewardBreakdown> reward;
        try {
            reward = environment.scoreAsync(done);
        } catch (RuntimeException e) {
            reward = CompletableFuture.failedFuture(e);
        }
        return reward.toCompletableFuture().copy().orTimeout(timeoutMillis, TimeUnit.MILLISECONDS);
    }

    /**
     * The trajectory with its reward; a failing scorer is reported in the trajectory, never lost, as an
     * infrastructure failure without a reward (never a reward of 0 the policy did not earn).
     */
    Trajectory scored(Trajectory t, RewardBreakdown reward, Throwable failure, long timeoutMillis) {
        if (failure == null) return t.withReward(reward);
        Throwable e = EpisodeActor.unwrap(failure);
        if (e instanceof TimeoutException) {
            e = new TimeoutException("scoring did not finish within tool-timeout (" + timeoutMillis + " ms)");
        }
        log.warn("episode {}: scoring failed", episodeId, e);
        return t.failedBy(InfraFailure.SCORER_FAILED, "reward failed: " + EpisodeActor.describe(e));
    }

    /** Releases the episode's state in the environment, once; a failure to is logged. */
    void close() {
        if (environment == null) return;
        try {
            environment.close();
        } catch (RuntimeException e) {
            log.warn("episode {}: closing its environment failed", episodeId, e);
        }
        environment = null;
    }
}
