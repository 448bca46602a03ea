package dev.agentswarm.app.bench;

import com.fasterxml.jackson.databind.node.TextNode;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.ToolCall;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The benchmark's stand-in for a model, the same script as the peers' harnesses: turns
 * 1..T-1 call the calculator on a small expression, turn T answers "The answer is X" with the
 * last tool result. It keeps no state per conversation (the turn comes with the request) and
 * answers at once or after a latency that holds no thread. It stamps request and answer times
 * into a {@link TurnClock} so the runtime's own time per turn can be separated from the model's.
 */
final class ScriptedCalculatorModel implements Policy, AutoCloseable {

    private final int turns;
    private final boolean nativeCalls;
    private final long latencyNanos;
    private final LatencyLine latency;
    private final TurnClock clock;
    private volatile int parkAtTurn = Integer.MAX_VALUE;
    private final Queue<Runnable> parked = new ConcurrentLinkedQueue<>();
    private final AtomicInteger parkedCount = new AtomicInteger();

    ScriptedCalculatorModel(int turns, String format, long latencyNanos, TurnClock clock) {
        this.turns = turns;
        this.nativeCalls = format.equals("openai");
        this.latencyNanos = latencyNanos;
        this.latency = latencyNanos > 0 ? new LatencyLine(latencyNanos) : null;
        this.clock = clock;
    }

    static String expressionFor(int episode, int turn) {
        return "(" + episode + " + " + turn + ") * 3 - " + turn + " / 4";
    }

    /** From now on, answers to {@code turn} wait until {@link #release()}: used to hold episodes in flight. */
    void parkAt(int turn) {
        parkAtTurn = turn;
    }

    int parkedCount() {
        return parkedCount.get();
    }

    void release() {
        parkAtTurn = Integer.MAX_VALUE;
        Runnable r;
        while ((r = parked.poll()) != null) r.run();
    }

    @Override
    public CompletionStage<Completion> complete(CompletionRequest req) {
        int episode = episodeIndex(req.episodeId());
        int turn = req.turn();
        boolean timed = req.episodeId().charAt(0) == 'b';
        if (timed) clock.requested(episode, turn, System.nanoTime());
        Completion answer = answer(req, episode, turn);
        if (turn >= parkAtTurn) {
            CompletableFuture<Completion> f = new CompletableFuture<>();
            parked.add(() -> f.complete(answer));
            parkedCount.incrementAndGet();
            return f;
        }
        if (latencyNanos <= 0) {
            if (timed) clock.answered(episode, turn, System.nanoTime());
            return CompletableFuture.completedFuture(answer);
        }
        return latency.later(answer, timed ? () -> clock.answered(episode, turn, System.nanoTime()) : () -> {});
    }

    private Completion answer(CompletionRequest req, int episode, int turn) {
        int promptTokens = 16 * req.messages().size();
        if (turn < turns) {
            String expr = expressionFor(episode, turn);
            if (nativeCalls) {
                ToolCall call = new ToolCall("call_" + turn, "calculator",
                        TextNode.valueOf("{\"expression\": \"" + expr + "\"}"));
                return new Completion("", List.of(call), null, null, FinishReason.TOOL_CALLS, 0, promptTokens, 16);
            }
            return new Completion("<tool_call>\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"" + expr
                    + "\"}}\n</tool_call>", List.of(), null, null, FinishReason.STOP, 0, promptTokens, 16);
        }
        return new Completion("The answer is " + lastToolResult(req.messages()), List.of(), null, null,
                FinishReason.STOP, 0, promptTokens, 16);
    }

    private static String lastToolResult(List<Message> messages) {
        String s = messages.get(messages.size() - 1).content();
        String open = "<tool_response>\n";
        int a = s.lastIndexOf(open);
        if (a < 0) return s;
        int b = s.indexOf("\n</tool_response>", a);
        return b < 0 ? s.substring(a + open.length()) : s.substring(a + open.length(), b);
    }

    @Override
    public void close() {
        if (latency != null) latency.close();
    }

    /** "b123" → 123 (measured), "w123" → 123 (warm-up). */
    static int episodeIndex(String id) {
        int v = 0;
        for (int i = 1; i < id.length(); i++) v = v * 10 + (id.charAt(i) - '0');
        return v;
    }
}
