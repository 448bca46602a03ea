package dev.agentswarm.workers;

import dev.agentswarm.core.CborSerializable;
import dev.agentswarm.core.protocol.SamplingParams;
import dev.agentswarm.policy.embedded.BatchGenerator;
import dev.agentswarm.policy.embedded.Generation;
import dev.agentswarm.policy.embedded.GenerationRequest;
import dev.agentswarm.policy.embedded.TopLogprobs;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * The node's embedded model: serves the completion requests of every episode on the node with
 * continuous batching. It runs one {@link BatchGenerator} step per {@code Step} message and sends
 * itself the next one, so requests, cancellations and new weights that arrived meanwhile are
 * handled between decode steps: new requests join the running batch at the next step, new weights
 * apply from the next step on. Spawn it on its own dispatcher (one thread): DJL work must never
 * block the default one. A full queue is answered at once with {@link Rejected}, not buffered.
 */
public final class PolicyServer extends AbstractBehavior<PolicyServer.Command> {

    public sealed interface Command extends CborSerializable {}

    /**
     * Generate a continuation of {@code prompt}; {@code requestId} must be unique among the open requests
     * of every requester on the node. With {@code stream}, {@link Tokens} replies carry the tokens as
     * decode steps produce them, before the {@link Generated} that holds them all. {@code topLogprobs}
     * &gt; 0: every position's most likely tokens come too ({@link TopLogprobs}).
     */
    public record Generate(long requestId, int[] prompt, SamplingParams sampling, int[] stopTokenIds,
                           ActorRef<Reply> replyTo, boolean stream, int topLogprobs) implements Command {

        /** Answered once, when the generation has finished. */
        public Generate(long requestId, int[] prompt, SamplingParams sampling, int[] stopTokenIds, ActorRef<Reply> replyTo) {
            this(requestId, prompt, sampling, stopTokenIds, replyTo, false, 0);
        }

        public Generate(long requestId, int[] prompt, SamplingParams sampling, int[] stopTokenIds, ActorRef<Reply> replyTo,
                        boolean stream) {
            this(requestId, prompt, sampling, stopTokenIds, replyTo, stream, 0);
        }
    }

    /** Stop generating for a request whose answer is no longer wanted; no reply is sent for it. */
    public record Cancel(long requestId) implements Command {}

    /**
     * Swap in new weights (safetensors, version in the metadata) before the next decode step; the
     * node's {@link WeightsFetcher} sends them, whole and checked.
     */
    public record LoadWeights(byte[] safetensors, ActorRef<WeightsLoaded> replyTo) implements Command {}

    public record GetStats(ActorRef<BatchGenerator.Stats> replyTo) implements Command {}

    private enum Step implements Command, NoSerializationVerificationNeeded { INSTANCE }

    public sealed interface Reply extends CborSerializable {}

    public record Generated(Generation generation) implements Reply {}

    /** Tokens of a streamed request produced since its previous {@code Tokens}, with their log-probs (and top ones, or null). */
    public record Tokens(long requestId, int[] tokenIds, float[] logprobs, TopLogprobs top) implements Reply {}

    /** The request was not served: queue full, prompt too long, or the model failed. */
    public record Rejected(long requestId, String reason) implements Reply {}

    /** {@code error} is null when the weights were loaded. */
    public record WeightsLoaded(long version, String error) implements CborSerializable {}

    private final BatchGenerator generator;
    private final PolicyServerMeters meters;
    /** The generator's token count at the last step, to record each step's tokens. */
    private long tokensSeen;
    private final Map<Long, ActorRef<Reply>> waiting = new HashMap<>();
    /** The requests in {@code waiting} that asked for their tokens as they come. */
    private final Set<Long> streamed = new HashSet<>();
    private boolean stepping;

    /** @param generator built on the server's own thread, at start */
    public static Behavior<Command> create(Supplier<BatchGenerator> generator) {
        return Behaviors.setup(ctx -> new PolicyServer(ctx, generator.get()));
    }

    private PolicyServer(ActorContext<Command> context, BatchGenerator generator) {
        super(context);
        this.generator = generator;
        this.meters = PolicyServerMeters.of(context.getSystem());
        meters.version(generator.version());
        meters.queued(generator.queued());
        tokensSeen = generator.generatedTokens();
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(Generate.class, this::onGenerate)
                .onMessage(Cancel.class, this::onCancel)
                .onMessage(LoadWeights.class, this::onLoadWeights)
                .onMessage(GetStats.class, this::onGetStats)
                .onMessageEquals(Step.INSTANCE, this::onStep)
                .onSignal(PostStop.class, signal -> onStop())
                .build();
    }

    private Behavior<Command> onGenerate(Generate g) {
        if (waiting.containsKey(g.requestId())) {
            g.replyTo().tell(new Rejected(g.requestId(), "request id " + g.requestId() + " is already being served"));
            return this;
        }
        try {
            generator.submit(new GenerationRequest(g.requestId(), g.prompt(), g.sampling(), g.stopTokenIds(), g.topLogprobs()));
        } catch (RuntimeException e) { // queue full, prompt too long, bad token id: the requester is told why
            g.replyTo().tell(new Rejected(g.requestId(), e.getMessage()));
            return this;
        }
        waiting.put(g.requestId(), g.replyTo());
        if (g.stream()) streamed.add(g.requestId());
        meters.queued(generator.queued());
        scheduleStep();
        return this;
    }

    private Behavior<Command> onCancel(Cancel c) {
        streamed.remove(c.requestId());
        if (waiting.remove(c.requestId()) != null) {
            generator.cancel(c.requestId());
            meters.queued(generator.queued());
        }
        return this;
    }

    private Behavior<Command> onLoadWeights(LoadWeights w) {
        try {
            long version = generator.loadWeights(w.safetensors());
            meters.version(version);
            getContext().getLog().info("policy weights version {} loaded", version);
            if (w.replyTo() != null) w.replyTo().tell(new WeightsLoaded(version, null));
        } catch (RuntimeException e) { // a mismatched file leaves the served weights as they were
            getContext().getLog().warn("refused policy weights: {}", e.getMessage());
            if (w.replyTo() != null) w.replyTo().tell(new WeightsLoaded(generator.version(), e.getMessage()));
        }
        return this;
    }

    private Behavior<Command> onGetStats(GetStats s) {
        s.replyTo().tell(generator.stats());
        return this;
    }

    private Behavior<Command> onStep() {
        stepping = false;
        List<Generation> finished;
        try {
            finished = generator.step();
        } catch (RuntimeException e) {
            // Contained: every open request is answered with the reason and the server keeps serving.
            getContext().getLog().error("generation step failed; answering {} open requests", waiting.size(), e);
            for (long id : generator.abortAll()) reject(id, "the embedded model failed: " + e);
            meters.queued(generator.queued());
            return this;
        }
        long tokens = generator.generatedTokens();
        meters.step(generator.lastDecodeBatch(), tokens - tokensSeen);
        tokensSeen = tokens;
        meters.queued(generator.queued());
        for (Generation g : finished) {
            streamed.remove(g.id());
            ActorRef<Reply> replyTo = waiting.remove(g.id());
            if (replyTo != null) replyTo.tell(new Generated(g));
        }
        if (!streamed.isEmpty()) {
            for (BatchGenerator.Progress p : generator.newTokens(streamed::contains)) {
                ActorRef<Reply> replyTo = waiting.get(p.id());
                if (replyTo != null) replyTo.tell(new Tokens(p.id(), p.tokens(), p.logprobs(), p.top()));
            }
        }
        if (generator.hasWork()) scheduleStep();
        return this;
    }

    private void reject(long id, String reason) {
        streamed.remove(id);
        ActorRef<Reply> replyTo = waiting.remove(id);
        if (replyTo != null) replyTo.tell(new Rejected(id, reason));
    }

    private void scheduleStep() {
        if (!stepping) {
            stepping = true;
            getContext().getSelf().tell(Step.INSTANCE);
        }
    }

    private Behavior<Command> onStop() {
        for (long id : generator.abortAll()) reject(id, "the policy server stopped");
        meters.queued(0);
        generator.close();
        return this;
    }
}
