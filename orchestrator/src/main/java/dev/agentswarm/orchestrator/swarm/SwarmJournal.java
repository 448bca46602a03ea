package dev.agentswarm.orchestrator.swarm;

import com.typesafe.config.Config;
import java.util.List;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.RecoveryFailed;
import org.apache.pekko.persistence.typed.SnapshotAdapter;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.RetentionCriteria;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * The journal of one orchestrator, written behind it: the orchestrator applies its events to its own
 * {@link SwarmLedger} at once and sends them here, so a turn never waits for the database; the journal
 * persists them in order and says how many are written. Each append is one journal entry
 * ({@link SwarmEvent.Batch}: what accumulated at the orchestrator while the previous write was in
 * flight), not one per event. On start it recovers its ledger from the latest snapshot and the events after it,
 * checking every event against the ledger, and gives the owner a copy of it ({@link Ready}): a corrupt
 * or foreign journal fails with the event that cannot follow, and one written by a newer build with
 * the format versions ({@link JournalFormat}), rather than resuming something else ({@link Failed}).
 *
 * <p>Every {@code snapshot-every} entries it stores a snapshot of its ledger ({@link SwarmLedger.Snapshot}),
 * on the actor system's snapshot store, keeping the {@code keep-snapshots} newest: a resume then reads
 * a snapshot and fewer than snapshot-every entries, however long the swarm ran. Events are kept.
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

    /**
     * Recovery is done: the swarm's state so far, checked, as a ledger of the owner's own (the journal
     * keeps another), and how many events the journal holds (0 for a new swarm).
     */
    public record Ready(String swarm, SwarmLedger ledger) implements Reply {
        /** The events the journal held at recovery (until the owner applies more to its ledger). */
        public long events() {
            return ledger.events();
        }
    }

    /** The first {@code events} events are in the database. */
    public record Written(String swarm, long events) implements Reply {}

    /** The journal cannot be read or does not make a swarm: nothing was resumed. */
    public record Failed(String swarm, String reason) implements Reply {}

    /** How often the journal takes a snapshot ({@code every} entries, 0 = never) and how many it keeps. */
    public record Snapshots(int every, int keep) {
        public Snapshots {
            if (every < 0) throw new IllegalArgumentException("agentswarm.swarm.journal.snapshot-every is " + every + "; use 0 (none) or more");
            if (keep < 1) throw new IllegalArgumentException("agentswarm.swarm.journal.keep-snapshots is " + keep + "; keep at least 1");
        }

        public static final Snapshots NONE = new Snapshots(0, 1);

        /** From {@code agentswarm.swarm.journal} (orchestrator's reference.conf). */
        public static Snapshots from(Config config) {
            return new Snapshots(config.getInt("agentswarm.swarm.journal.snapshot-every"),
                    config.getInt("agentswarm.swarm.journal.keep-snapshots"));
        }
    }

    /** The ledger the journal's events made, or why its snapshot could not be taken up (then nothing is resumed). */
    public static final class Journal {
        final SwarmLedger ledger;
        final String refused;

        Journal(SwarmLedger ledger, String refused) {
            this.ledger = ledger;
            this.refused = refused;
        }
    }

    private final String swarm;
    private final ActorRef<Reply> owner;
    private final Snapshots snapshots;
    /** The owner started a new swarm without waiting for recovery: the journal must turn out empty. */
    private final boolean expectsNew;
    /** It did not: appends are dropped, the owner was told ({@link Failed}). */
    private boolean notNew;

    /** The journal of swarm {@code swarm}, with the snapshot settings of the actor system's configuration. */
    public static Behavior<Command> create(String swarm, ActorRef<Reply> owner) {
        return Behaviors.setup(ctx -> new SwarmJournal(swarm, owner, Snapshots.from(ctx.getSystem().settings().config()), false));
    }

    /**
     * The journal of a swarm its owner knows to be new and runs at once: appends sent meanwhile wait for
     * the recovery (Pekko stashes them), which must find nothing; a journal that holds events for
     * {@code swarm} is not written to and the owner gets {@link Failed} instead of {@link Ready}.
     */
    public static Behavior<Command> createNew(String swarm, ActorRef<Reply> owner) {
        return Behaviors.setup(ctx -> new SwarmJournal(swarm, owner, Snapshots.from(ctx.getSystem().settings().config()), true));
    }

    /** The journal of swarm {@code swarm} (its persistence id is {@code swarm|<swarm>}), reporting to {@code owner}. */
    public SwarmJournal(String swarm, ActorRef<Reply> owner, Snapshots snapshots) {
        this(swarm, owner, snapshots, false);
    }

    /** The same; {@code expectsNew}: see {@link #createNew}. */
    public SwarmJournal(String swarm, ActorRef<Reply> owner, Snapshots snapshots, boolean expectsNew) {
        // A write or read that fails stops the journal (Pekko's default): its owner starts a new one, whose
        // state is fresh (a restarted instance would keep the events applied before the failed write).
        super(PersistenceId.of("swarm", swarm));
        this.swarm = swarm;
        this.owner = owner;
        this.snapshots = snapshots;
        this.expectsNew = expectsNew;
    }

    public static PersistenceId persistenceId(String swarm) {
        return PersistenceId.of("swarm", swarm);
    }

    @Override
    public Journal emptyState() {
        return new Journal(new SwarmLedger(), null);
    }

    @Override
    public CommandHandler<Command, SwarmEvent, Journal> commandHandler() {
        return newCommandHandlerBuilder().forAnyState()
                .onCommand(Append.class, (journal, a) -> {
                    if (journal.refused != null || notNew) return Effect().none(); // its owner was told, and writes nothing here
                    long have = journal.ledger.events();
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
                    // One entry for the whole append: written, or not, as a whole (see SwarmEvent.Batch).
                    return Effect().persist((SwarmEvent) new SwarmEvent.Batch(fresh))
                            .thenRun(j -> owner.tell(new Written(swarm, j.ledger.events())));
                })
                .build();
    }

    @Override
    public EventHandler<Journal, SwarmEvent> eventHandler() {
        return (journal, entry) -> {
            if (journal.refused != null) return journal;
            for (SwarmEvent event : SwarmEvent.Batch.unpacked(List.of(entry))) {
                journal.ledger.apply(event); // refuses an event that cannot follow: recovery then fails
            }
            return journal;
        };
    }

    @Override
    public RetentionCriteria retentionCriteria() {
        // Old snapshots are deleted as new ones are stored; events stay (the runs list and reports read them).
        return snapshots.every() == 0 ? RetentionCriteria.disabled() : RetentionCriteria.snapshotEvery(snapshots.every(), snapshots.keep());
    }

    @Override
    public SnapshotAdapter<Journal> snapshotAdapter() {
        return new SnapshotAdapter<>() {
            @Override
            public Object toJournal(Journal journal) {
                return journal.ledger.snapshot(); // taken now: the ledger goes on changing while the store writes it
            }

            @Override
            public Journal fromJournal(Object stored) {
                if (!(stored instanceof SwarmLedger.Snapshot snapshot)) {
                    return new Journal(new SwarmLedger(), "its snapshot is a " + (stored == null ? "null" : stored.getClass().getName())
                            + ", not a swarm ledger's");
                }
                try {
                    return new Journal(SwarmLedger.restore(snapshot), null);
                } catch (RuntimeException e) {
                    return new Journal(new SwarmLedger(), "its snapshot does not hold together: " + e.getMessage());
                }
            }
        };
    }

    @Override
    public SignalHandler<Journal> signalHandler() {
        return newSignalHandlerBuilder()
                .onSignal(RecoveryCompleted.instance(), journal -> {
                    if (journal.refused != null) {
                        owner.tell(new Failed(swarm, "the journal of swarm " + swarm + " cannot be resumed: " + journal.refused));
                    } else if (expectsNew && journal.ledger.events() > 0) {
                        notNew = true;
                        owner.tell(new Failed(swarm, "swarm " + swarm + " was started as a new swarm, but the journal already holds "
                                + journal.ledger.events() + " of its events; nothing was written over them (resume it instead)"));
                    } else {
                        owner.tell(new Ready(swarm, journal.ledger.copy()));
                    }
                })
                .onSignal(RecoveryFailed.class, (journal, failed) -> owner.tell(new Failed(swarm, recoveryFailure(failed.getFailure()))))
                .build();
    }

    /** Why recovery failed, naming the swarm; a journal from a newer build says which versions. */
    private String recoveryFailure(Throwable failure) {
        JournalFormat.NewerThanThisBuild newer = JournalFormat.newerFormatIn(failure);
        if (newer != null) {
            return "the journal of swarm " + swarm + " was written by a newer version of agentswarm: " + newer.getMessage()
                    + "; nothing was resumed and nothing is written to it";
        }
        return "the journal of swarm " + swarm + " cannot be replayed: " + failure.getMessage();
    }
}
