package dev.agentswarm.app.serve;

import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.SamplingParams;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.policy.chat.ChatFormat;
import dev.agentswarm.policy.embedded.Generation;
import dev.agentswarm.workers.EmbeddedPolicy;
import dev.agentswarm.workers.PolicyServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

/**
 * The node's {@link PolicyServer} as a served model: requests join the same continuously batched
 * decode as the node's episodes, with the model's own chat template and stop tokens.
 */
public final class PolicyServerModel implements ServedModel {

    /**
     * The policy server keys open requests by id; the node's episodes number theirs from 1, so this
     * server's ids start far above them.
     */
    private static final long FIRST_ID = 1L << 62;

    private final String id;
    private final ActorRef<PolicyServer.Command> server;
    private final ChatFormat format;
    private final Scheduler scheduler;
    private final Duration timeout;
    private final int[] stopIds;
    private final AtomicLong requestIds = new AtomicLong(FIRST_ID);

    public PolicyServerModel(String id, ActorRef<PolicyServer.Command> server, ChatFormat format, Scheduler scheduler,
                             Duration timeout) {
        this.id = id;
        this.server = server;
        this.format = format;
        this.scheduler = scheduler;
        this.timeout = timeout;
        this.stopIds = format.stopTokenIds();
    }

    /** The model the node's episodes use, under {@code id}. */
    public static PolicyServerModel of(String id, EmbeddedPolicy policy, Scheduler scheduler) {
        return new PolicyServerModel(id, policy.server(), policy.chatFormat(), scheduler, policy.timeout());
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public int[] prompt(List<Message> messages, List<ToolSpec> tools) {
        return format.prompt(messages, tools);
    }

    @Override
    public byte[] tokenBytes(int tokenId) {
        return format.tokenizer().tokenBytes(tokenId);
    }

    @Override
    public CompletionStage<Generation> generate(int[] prompt, SamplingParams sampling) {
        long requestId = requestIds.incrementAndGet();
        CompletableFuture<Generation> result = new CompletableFuture<>();
        AskPattern.<PolicyServer.Command, PolicyServer.Reply>ask(server,
                        replyTo -> new PolicyServer.Generate(requestId, prompt, sampling, stopIds, replyTo), timeout, scheduler)
                .whenComplete((reply, error) -> {
                    if (error != null) {
                        boolean timedOut = error instanceof TimeoutException || error.getCause() instanceof TimeoutException;
                        if (timedOut) server.tell(new PolicyServer.Cancel(requestId));
                        result.completeExceptionally(timedOut
                                ? new ApiError(504, "server_error", "the model did not finish within " + timeout
                                        + " (agentswarm.policy.embedded.request-timeout); lower max_tokens", null, "timeout")
                                : ApiError.internal("policy server: " + error));
                    } else if (reply instanceof PolicyServer.Generated g) {
                        result.complete(g.generation());
                    } else if (reply instanceof PolicyServer.Rejected r) {
                        result.completeExceptionally(rejection(r.reason()));
                    }
                });
        return result;
    }

    /** The policy server's reason for not serving a request, as the API's status. */
    static ApiError rejection(String reason) {
        if (reason.contains("queue full")) return ApiError.overloaded(reason);
        if (reason.contains("leaves no room") || reason.contains("outside the vocabulary") || reason.contains("empty prompt")) {
            return ApiError.invalid("messages", reason);
        }
        return ApiError.internal(reason);
    }
}
