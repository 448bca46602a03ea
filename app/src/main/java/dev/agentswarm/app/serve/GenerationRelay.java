package dev.agentswarm.app.serve;

import dev.agentswarm.core.protocol.SamplingParams;
import dev.agentswarm.workers.PolicyServer;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * Between HTTP requests and the node's {@link PolicyServer}: sends each request's {@code Generate},
 * passes the server's replies (streamed tokens, the generation, a refusal) to the request's listener,
 * cancels a generation whose client went away, and gives up on one that takes longer than the
 * configured request timeout (cancelling it, so its batch slot is freed). One per served model.
 */
public final class GenerationRelay extends AbstractBehavior<GenerationRelay.Command> {

    public sealed interface Command extends NoSerializationVerificationNeeded {}

    public record Start(long requestId, int[] prompt, SamplingParams sampling, int[] stopTokenIds, boolean stream,
                        int topLogprobs, ServedModel.Listener listener) implements Command {}

    /** The client went away: stop generating, say nothing more. */
    public record Stop(long requestId) implements Command {}

    private record FromServer(PolicyServer.Reply reply) implements Command {}

    private record TimedOut(long requestId) implements Command {}

    private final ActorRef<PolicyServer.Command> server;
    private final Duration timeout;
    private final TimerScheduler<Command> timers;
    private final ActorRef<PolicyServer.Reply> replies;
    private final Map<Long, ServedModel.Listener> open = new HashMap<>();

    public static Behavior<Command> create(ActorRef<PolicyServer.Command> server, Duration timeout) {
        return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> new GenerationRelay(ctx, server, timeout, timers)));
    }

    private GenerationRelay(ActorContext<Command> context, ActorRef<PolicyServer.Command> server, Duration timeout,
                            TimerScheduler<Command> timers) {
        super(context);
        this.server = server;
        this.timeout = timeout;
        this.timers = timers;
        this.replies = context.messageAdapter(PolicyServer.Reply.class, FromServer::new);
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(Start.class, this::onStart)
                .onMessage(Stop.class, this::onStop)
                .onMessage(FromServer.class, this::onReply)
                .onMessage(TimedOut.class, this::onTimedOut)
                .build();
    }

    private Behavior<Command> onStart(Start s) {
        open.put(s.requestId(), s.listener());
        timers.startSingleTimer(s.requestId(), new TimedOut(s.requestId()), timeout);
        server.tell(new PolicyServer.Generate(s.requestId(), s.prompt(), s.sampling(), s.stopTokenIds(), replies, s.stream(),
                s.topLogprobs()));
        return this;
    }

    private Behavior<Command> onStop(Stop s) {
        if (close(s.requestId()) != null) server.tell(new PolicyServer.Cancel(s.requestId()));
        return this;
    }

    private Behavior<Command> onReply(FromServer f) {
        PolicyServer.Reply reply = f.reply();
        if (reply instanceof PolicyServer.Tokens t) {
            ServedModel.Listener l = open.get(t.requestId());
            if (l != null) l.tokens(t.tokenIds(), t.logprobs(), t.top());
        } else if (reply instanceof PolicyServer.Generated g) {
            ServedModel.Listener l = close(g.generation().id());
            if (l != null) l.done(g.generation());
        } else if (reply instanceof PolicyServer.Rejected r) {
            ServedModel.Listener l = close(r.requestId());
            if (l != null) l.failed(PolicyServerModel.rejection(r.reason()));
        }
        return this;
    }

    private Behavior<Command> onTimedOut(TimedOut t) {
        ServedModel.Listener l = close(t.requestId());
        if (l != null) {
            server.tell(new PolicyServer.Cancel(t.requestId()));
            l.failed(new ApiError(504, "server_error", "the model did not finish within " + timeout
                    + " (agentswarm.policy.embedded.request-timeout); lower max_tokens", null, "timeout"));
        }
        return this;
    }

    private ServedModel.Listener close(long requestId) {
        timers.cancel(requestId);
        return open.remove(requestId);
    }
}
