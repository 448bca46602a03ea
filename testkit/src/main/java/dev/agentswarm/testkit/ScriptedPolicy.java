package dev.agentswarm.testkit;

import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.policy.PolicyException;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.Message;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * A policy that answers from a script instead of a model: either a list of replies (reply
 * {@code n} answers policy turn {@code n} of every episode) or a function of the request.
 * An optional latency delays each answer without blocking any thread, as a remote model would.
 */
public final class ScriptedPolicy implements Policy {

    private final Function<CompletionRequest, Completion> script;
    private final long latencyNanos;
    private final long version;
    private final LongAdder calls = new LongAdder();

    private ScriptedPolicy(Function<CompletionRequest, Completion> script, long latencyNanos, long version) {
        this.script = script;
        this.latencyNanos = latencyNanos;
        this.version = version;
    }

    /** Turn {@code n} of every episode gets {@code replies[n-1]}; a turn past the end fails the policy call. */
    public static ScriptedPolicy replies(String... replies) {
        List<String> list = List.of(replies);
        return texts(req -> {
            if (req.turn() > list.size()) {
                throw new PolicyException("script exhausted: episode " + req.episodeId() + " asked for turn "
                        + req.turn() + " but the script has " + list.size() + " replies", false);
            }
            return list.get(req.turn() - 1);
        });
    }

    /** Replies computed from the request (the conversation, the turn, the episode id). */
    public static ScriptedPolicy texts(Function<CompletionRequest, String> fn) {
        return completions(req -> {
            String text = fn.apply(req);
            return Completion.ofText(text, promptTokens(req), (text.length() + 3) / 4);
        });
    }

    /** Full completions computed from the request: native tool calls, token ids, log-probs, finish reasons. */
    public static ScriptedPolicy completions(Function<CompletionRequest, Completion> fn) {
        return new ScriptedPolicy(fn, 0, 0);
    }

    /** The same script answering after {@code latency}, without holding a thread while it waits. */
    public ScriptedPolicy withLatency(Duration latency) {
        return new ScriptedPolicy(script, latency.toNanos(), version);
    }

    /** The same script stamping its completions with a policy version. */
    public ScriptedPolicy withVersion(long v) {
        return new ScriptedPolicy(script, latencyNanos, v);
    }

    @Override
    public CompletionStage<Completion> complete(CompletionRequest request) {
        calls.increment();
        if (latencyNanos <= 0) return CompletableFuture.completedFuture(answer(request));
        Executor later = CompletableFuture.delayedExecutor(latencyNanos, TimeUnit.NANOSECONDS, Runnable::run);
        return CompletableFuture.supplyAsync(() -> answer(request), later);
    }

    private Completion answer(CompletionRequest request) {
        Completion c = script.apply(request);
        if (version != 0 && c.policyVersion() != version) {
            c = new Completion(c.text(), c.toolCalls(), c.tokenIds(), c.logprobs(), c.finishReason(), version,
                    c.promptTokens(), c.completionTokens());
        }
        return c;
    }

    public long calls() {
        return calls.sum();
    }

    @Override
    public String describe() {
        return "scripted";
    }

    private static int promptTokens(CompletionRequest req) {
        int chars = 0;
        for (Message m : req.messages()) chars += m.content().length();
        return (chars + 3) / 4;
    }
}
