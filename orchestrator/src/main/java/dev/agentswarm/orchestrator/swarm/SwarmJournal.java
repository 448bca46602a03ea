package dev.agentswarm.orchestrator.swarm;

import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.RecoveryFailed;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * The journal of one orchestrator, written behind it: the orchestrator applies its events to its own
 * {@link SwarmLedger} at once and sends them here, so a turn never waits for the database; the journal
 * persists them in order (Pekko batches what arrives while a write is in flight) and says how many
 * are written. On start it replays the journal, checking every event against a ledger, and gives the
 * owner the events so far ({@link Ready}): a corrupt or foreign journal fails with the event that
 * cannot follow ({@link Failed}) rather than resuming something else.
 *
 * <p>Appends carry their position, so the owner may send again whatever is not confirmed after the
 * journal stopped (a write that failed stops it, as Pekko does): the owner watches it and opens a new
 * one, which recovers what made it to the database and keeps only the part of a re-sent batch that it
 * lacks.
 */
public final class SwarmJournal extends EventSourcedBehavior<SwarmJournal.Command, SwarmEvent, SwarmJournal.Journal> {

    /** Local messages: the journal is a child of its orchestrator. */
    public interface Command extends NoSerializationVerificationNeeded {}

    /** Events {@code from} .. from + events.size() - 1 of the swarm (counting from 0), in order. */
    public record Append(long from, List<SwarmEvent> events) implements Command {
        public Append {
            events = List.copyOf(events);
        }
    }

    /** What the journal tells its owner. */
    public interface Reply extends NoSerializationVerificationNeeded {}

    /** Recovery is done: the swarm's events so far, checked (empty for a new swarm). */
    public record Ready(String swarm, List<SwarmEvent> events) implements Reply {}

    /** The first {@code events} events are in the database. */
    public record Written(String swarm, long events) implements Reply {}

    /** The journal cannot be read or does not make a swarm: nothing was resumed. */
    public record Failed(String swarm, String reason) implements Reply {}

    /** The events recovered and written so far, and the ledger that checked them. */
    public static final class Journal {
        final List<SwarmEvent> events = new ArrayList<>();
        final SwarmLedger ledger = new SwarmLedger();
    }

    private final String swarm;
    private final ActorRef<Reply> owner;

    /** The journal of swarm {@code swarm} (its persistence id is {@code swarm|<swarm>}), reporting to {@code owner}. */
    public SwarmJournal(String swarm, ActorRef<Reply> owner) {
        // A write or read that fails stops the journal (Pekko's default): its owner starts a new one, whose
        // state is fresh (a restarted instance would keep the events applied before the failed write).
        super(PersistenceId.of("swarm", swarm));
        this.swarm = swarm;
        this.owner = owner;
    }

    public static PersistenceId persistenceId(String swarm) {
        return PersistenceId.of("swarm", swarm);
    }

    @Override
    public Journal emptyState() {
        return new Journal();
    }

    @Override
    public CommandHandler<Command, SwarmEvent, Journal> commandHandler() {
        return newCommandHandlerBuilder().forAnyState()
                .onCommand(Append.class, (journal, a) -> {
                    long have = journal.events.size();
                    if (a.from() > have) {
                        // A gap: the owner sent past what is written; it must send from `have` again.
                        owner.tell(new Written(swarm, have));
                        return Effect().none();
                    }
                    long skip = have - a.from();
                    if (skip >= a.events().size()) {
                        owner.tell(new Written(swarm, have));
                        return Effect().none();
                    }
                    List<SwarmEvent> fresh = a.events().subList((int) skip, a.events().size());
                    return Effect().persist(fresh).thenRun(j -> owner.tell(new Written(swarm, j.events.size())));
                })
                .build();
    }

    @Override
    public EventHandler<Journal, SwarmEvent> eventHandler() {
        return (journal, event) -> {
            journal.ledger.apply(event); // refuses an event that cannot follow: recovery then fails
            journal.events.add(event);
            return journal;
        };
    }

    @Override
    public SignalHandler<Journal> signalHandler() {
        return newSignalHandlerBuilder()
                .onSignal(RecoveryCompleted.instance(), journal -> owner.tell(new Ready(swarm, List.copyOf(journal.events))))
                .onSignal(RecoveryFailed.class, (journal, failed) -> owner.tell(new Failed(swarm,
                        "the journal of swarm " + swarm + " cannot be replayed: " + failed.getFailure().getMessage())))
                .build();
    }
}
