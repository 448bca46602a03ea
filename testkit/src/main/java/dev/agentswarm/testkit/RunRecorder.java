package dev.agentswarm.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.context.TokenCounter;
import dev.agentswarm.core.tool.ForwardingTool;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.core.tool.ToolContext;
import dev.agentswarm.core.tool.ToolRegistry;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * Records a run to JSONL: every policy answer and every tool outcome, keyed by episode, turn and
 * call position, plus the requests and the resulting trajectories. Because the keys do not depend
 * on timing, {@link RunRecording} can replay the run under any thread interleaving and get the
 * same trajectories. Thread-safe; lines are written as events happen.
 */
public final class RunRecorder implements AutoCloseable {

    private final BufferedWriter out;

    public RunRecorder(Path file) {
        try {
            if (file.getParent() != null) Files.createDirectories(file.getParent());
            this.out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write recording " + file + ": " + e.getMessage(), e);
        }
    }

    public void tools(List<ToolSpec> specs) {
        write(RecordedLine.tools(specs));
    }

    public void episode(String episodeId, String groupId, Task task, EpisodeSpec spec) {
        write(RecordedLine.episode(episodeId, groupId, task, spec));
    }

    public void trajectory(Trajectory t) {
        write(RecordedLine.trajectory(t));
    }

    /** The policy, answering as before, with every answer recorded. */
    public Policy wrap(Policy inner) {
        return new Policy() {
            @Override
            public CompletionStage<Completion> complete(CompletionRequest req) {
                CompletionStage<Completion> answer;
                try {
                    answer = inner.complete(req);
                } catch (RuntimeException e) {
                    answer = CompletableFuture.failedFuture(e); // a synchronous throw is an answer too
                }
                if (answer == null) answer = CompletableFuture.completedFuture(null);
                return answer.whenComplete((c, e) -> {
                    if (c != null) write(RecordedLine.completion(req.episodeId(), req.turn(), c));
                    else write(RecordedLine.policyError(req.episodeId(), req.turn(),
                            e == null ? "policy returned no completion" : message(e), e != null && retryable(e)));
                });
            }

            @Override
            public TokenCounter tokenCounter() {
                return inner.tokenCounter();
            }

            @Override
            public String describe() {
                return inner.describe() + " (recorded)";
            }
        };
    }

    /** The same tools, with every outcome recorded; also records their specs. */
    public ToolRegistry wrap(ToolRegistry tools) {
        tools(tools.specs());
        return ToolRegistry.of(tools.names().stream().map(n -> recording(tools.find(n).orElseThrow())).toList());
    }

    private Tool recording(Tool inner) {
        return new ForwardingTool(inner) {
            @Override
            public CompletionStage<String> invoke(JsonNode arguments, ToolContext ctx) {
                CompletableFuture<String> out;
                try {
                    CompletableFuture<String> tool = inner.invoke(arguments, ctx).toCompletableFuture();
                    out = tool.thenApply(s -> s);
                    // The executor cancels what it was given; pass that on to the real tool.
                    out.whenComplete((r, e) -> {
                        if (e instanceof CancellationException) tool.cancel(true);
                    });
                } catch (RuntimeException e) {
                    out = CompletableFuture.failedFuture(e);
                }
                // Registered on the returned future, so a timeout's cancel is seen and recorded as "hung".
                out.whenComplete((r, e) -> write(e instanceof CancellationException
                        ? RecordedLine.tool(ctx.episodeId(), ctx.turn(), ctx.callIndex(), inner.name(), null, null, true)
                        : RecordedLine.tool(ctx.episodeId(), ctx.turn(), ctx.callIndex(), inner.name(), r,
                                e == null ? null : message(e), false)));
                return out;
            }
        };
    }

    private synchronized void write(RecordedLine line) {
        try {
            out.write(Json.write(line));
            out.newLine();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether an episode asks again after {@code e}: anything but a policy error that says no retry can mend it. */
    private static boolean retryable(Throwable e) {
        while (e instanceof CompletionException && e.getCause() != null) e = e.getCause();
        return !(e instanceof dev.agentswarm.core.policy.PolicyException p) || p.retryable();
    }

    private static String message(Throwable e) {
        while (e instanceof CompletionException && e.getCause() != null) e = e.getCause();
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }

    @Override
    public synchronized void close() {
        try {
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
