package dev.agentswarm.environments;

import dev.agentswarm.core.format.ToolCallFormat;
import dev.agentswarm.core.format.ToolCallFormats;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.policy.PolicyException;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.Task;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * A suite's oracle as a {@link Policy}: it runs through the ordinary episode loop, so its tool calls
 * go through the real tools and its episodes are scored like any other. {@code taskOf} maps an
 * episode id to its task (the caller that starts the episodes knows it).
 */
public final class OraclePolicy implements Policy {

    private final Oracle oracle;
    private final ToolCallFormat format;
    private final Function<String, Task> taskOf;
    private final Noise noise;

    public OraclePolicy(Suite suite, String formatName, Function<String, Task> taskOf, Noise noise) {
        this.oracle = suite.oracle().orElseThrow(() -> new IllegalArgumentException("suite " + suite.name() + " has no oracle"));
        this.format = ToolCallFormats.byName(formatName);
        this.taskOf = taskOf;
        this.noise = noise;
    }

    @Override
    public CompletionStage<Completion> complete(CompletionRequest request) {
        try {
            Task task = taskOf.apply(request.episodeId());
            if (task == null) throw new PolicyException("the oracle knows no task for episode " + request.episodeId(), false);
            Oracle.Step step = oracle.next(task, request.messages(), noise);
            Completion written = format.write(step.thought(), step.calls(), step.answer());
            int prompt = request.messages().stream().mapToInt(tokenCounter()::count).sum();
            int completion = (written.text().length() + 3) / 4;
            return CompletableFuture.completedFuture(new Completion(written.text(), written.toolCalls(), null, null,
                    written.finishReason(), 0, prompt, completion));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public String describe() {
        return "oracle (" + format.name() + ")";
    }
}
