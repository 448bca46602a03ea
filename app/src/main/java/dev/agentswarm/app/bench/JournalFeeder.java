package dev.agentswarm.app.bench;

import dev.agentswarm.orchestrator.swarm.SwarmEvent;
import dev.agentswarm.orchestrator.swarm.SwarmJournal;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * Writes one swarm's events through its {@link SwarmJournal} as an orchestrator does: one batch in
 * flight, the next sent when the journal confirms it, with what has piled up meanwhile (here: up to
 * {@code maxBatch} events, the backlog of a busy swarm). Completes {@code done} with the time the last
 * event was confirmed.
 */
final class JournalFeeder extends AbstractBehavior<JournalFeeder.Command> {

    interface Command {}

    private record FromJournal(SwarmJournal.Reply reply) implements Command {}

    private final String swarm;
    private final List<SwarmEvent> events;
    private final int maxBatch;
    private final CompletableFuture<Long> done;
    private final ActorRef<SwarmJournal.Command> journal;
    private long confirmed;

    static Behavior<Command> create(String swarm, List<SwarmEvent> events, int maxBatch, CompletableFuture<Long> done) {
        return Behaviors.setup(ctx -> new JournalFeeder(ctx, swarm, events, maxBatch, done));
    }

    private JournalFeeder(ActorContext<Command> ctx, String swarm, List<SwarmEvent> events, int maxBatch, CompletableFuture<Long> done) {
        super(ctx);
        this.swarm = swarm;
        this.events = events;
        this.maxBatch = maxBatch;
        this.done = done;
        this.journal = ctx.spawn(SwarmJournal.create(swarm, ctx.messageAdapter(SwarmJournal.Reply.class, FromJournal::new)), "journal");
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder().onMessage(FromJournal.class, this::onReply).build();
    }

    private Behavior<Command> onReply(FromJournal from) {
        if (from.reply() instanceof SwarmJournal.Ready r) {
            confirmed = r.events();
        } else if (from.reply() instanceof SwarmJournal.Written w) {
            confirmed = w.events();
        } else if (from.reply() instanceof SwarmJournal.Failed f) {
            done.completeExceptionally(new IllegalStateException(f.reason()));
            return Behaviors.stopped();
        }
        if (confirmed >= events.size()) {
            done.complete(System.nanoTime());
            return Behaviors.stopped();
        }
        int from0 = (int) confirmed;
        journal.tell(new SwarmJournal.Append(from0, events.subList(from0, Math.min(events.size(), from0 + maxBatch))));
        return this;
    }
}
