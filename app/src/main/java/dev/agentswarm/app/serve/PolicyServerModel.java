package dev.agentswarm.app.serve;

import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.SamplingParams;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.policy.chat.ChatFormat;
import dev.agentswarm.workers.EmbeddedPolicy;
import dev.agentswarm.workers.PolicyServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;

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
    private final ChatFormat format;
    private final int[] stopIds;
    private final ActorRef<GenerationRelay.Command> relay;
    private final AtomicLong requestIds = new AtomicLong(FIRST_ID);

    public PolicyServerModel(String id, ActorSystem<?> system, ActorRef<PolicyServer.Command> server, ChatFormat format,
                             Duration timeout) {
        this.id = id;
        this.format = format;
        this.stopIds = format.stopTokenIds();
        this.relay = system.systemActorOf(GenerationRelay.create(server, timeout), "openai-relay-" + id.replaceAll("[^A-Za-z0-9_-]", "_")
                + "-" + System.nanoTime(), Props.empty());
    }

    /** The model the node's episodes use, under {@code id}. */
    public static PolicyServerModel of(String id, EmbeddedPolicy policy, ActorSystem<?> system) {
        return new PolicyServerModel(id, system, policy.server(), policy.chatFormat(), policy.timeout());
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
    public Runnable generate(int[] prompt, SamplingParams sampling, boolean stream, Listener listener) {
        return generate(prompt, sampling, stream, 0, listener);
    }

    @Override
    public Runnable generate(int[] prompt, SamplingParams sampling, boolean stream, int topLogprobs, Listener listener) {
        long requestId = requestIds.incrementAndGet();
        relay.tell(new GenerationRelay.Start(requestId, prompt, sampling, stopIds, stream, topLogprobs, listener));
        return () -> relay.tell(new GenerationRelay.Stop(requestId));
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
