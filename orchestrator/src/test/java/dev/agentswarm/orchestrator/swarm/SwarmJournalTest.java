package dev.agentswarm.orchestrator.swarm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.orchestrator.swarm.SwarmEvent.AttemptStarted;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.persistence.testkit.PersistenceTestKitPlugin;
import org.apache.pekko.persistence.testkit.PersistenceTestKitSnapshotPlugin;
import org.apache.pekko.persistence.testkit.SnapshotMeta;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.apache.pekko.persistence.testkit.javadsl.SnapshotTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The write-behind journal on Pekko's in-memory journal and snapshot store, whose writes and reads can be made to fail. */
class SwarmJournalTest {

    private static final ActorTestKit kit = ActorTestKit.create(PersistenceTestKitPlugin.getInstance().config()
            .withFallback(PersistenceTestKitSnapshotPlugin.getInstance().config())
            .withFallback(com.typesafe.config.ConfigFactory.parseString(
                    "pekko.persistence.testkit.events.serialize = on\npekko.persistence.testkit.snapshots.serialize = on\n"
                            + "pekko.loglevel = ERROR")));
    private static final PersistenceTestKit journalKit = PersistenceTestKit.create(kit.system());
    private static final SnapshotTestKit snapshotKit = SnapshotTestKit.create(kit.system());

    @BeforeEach
    void clear() {
        journalKit.clearAll();
        snapshotKit.clearAll();
    }

    @AfterAll
    static void stop() {
        kit.shutdownTestKit();
    }

    private static List<SwarmEvent> events() {
        return SwarmLedgerTest.journal();
    }

    private static ActorRef<SwarmJournal.Command> open(String swarm, TestProbe<SwarmJournal.Reply> owner) {
        return kit.spawn(new SwarmJournal(swarm, owner.getRef(), SwarmJournal.Snapshots.NONE));
    }

    private static SwarmJournal.Ready ready(TestProbe<SwarmJournal.Reply> owner) {
        return owner.expectMessageClass(SwarmJournal.Ready.class, Duration.ofSeconds(5));
    }

    /** A new swarm's journal holding the first {@code n} events, written. */
    private static ActorRef<SwarmJournal.Command> newJournalWith(String swarm, TestProbe<SwarmJournal.Reply> owner, int n) {
        ActorRef<SwarmJournal.Command> journal = open(swarm, owner);
        assertEquals(0, owner.expectMessageClass(SwarmJournal.Ready.class).events());
        journal.tell(new SwarmJournal.Append(0, events().subList(0, n)));
        writtenUpTo(owner, n);
        return journal;
    }

    private static long writtenUpTo(TestProbe<SwarmJournal.Reply> owner, long wanted) {
        long got = -1;
        while (got < wanted) got = owner.expectMessageClass(SwarmJournal.Written.class, Duration.ofSeconds(5)).events();
        return got;
    }

    @Test
    void aNewSwarmStartsEmptyAndARestartedOneGetsItsEventsBack() {
        TestProbe<SwarmJournal.Reply> owner = kit.createTestProbe();
        ActorRef<SwarmJournal.Command> journal = open("s1", owner);
        SwarmJournal.Ready fresh = owner.expectMessageClass(SwarmJournal.Ready.class);
        assertEquals(0, fresh.events());
        assertEquals(new SwarmLedger().view(), fresh.ledger().view());
        List<SwarmEvent> all = events();
        journal.tell(new SwarmJournal.Append(0, all.subList(0, 5)));
        journal.tell(new SwarmJournal.Append(5, all.subList(5, all.size())));
        assertEquals(all.size(), writtenUpTo(owner, all.size()));
        kit.stop(journal);

        TestProbe<SwarmJournal.Reply> again = kit.createTestProbe();
        open("s1", again);
        SwarmJournal.Ready ready = ready(again);
        assertEquals(all.size(), ready.events());
        assertEquals(SwarmLedger.replay(all).view(), ready.ledger().view(), "every event, in order");
        assertEquals(List.of(new SwarmEvent.Batch(all.subList(0, 5)), new SwarmEvent.Batch(all.subList(5, all.size()))),
                journalKit.persistedInStorage(SwarmJournal.persistenceId("s1").id()), "one entry per append");
    }

    @Test
    void aNewSwarmsJournalTakesWhatWasSentBeforeItsRecoveryEnded() {
        TestProbe<SwarmJournal.Reply> owner = kit.createTestProbe();
        // The owner does not wait for Ready: its first appends arrive while the journal is still recovering.
        ActorRef<SwarmJournal.Command> journal = kit.spawn(new SwarmJournal("n1", owner.getRef(), SwarmJournal.Snapshots.NONE, true));
        List<SwarmEvent> all = events();
        journal.tell(new SwarmJournal.Append(0, all.subList(0, 3)));
        journal.tell(new SwarmJournal.Append(0, all.subList(0, 7))); // sent again with more, before any confirmation
        assertEquals(0, owner.expectMessageClass(SwarmJournal.Ready.class, Duration.ofSeconds(5)).events(), "empty: it is new");
        assertEquals(7, writtenUpTo(owner, 7));
        assertEquals(all.subList(0, 7), SwarmEvent.Batch.unpacked(journalKit.persistedInStorage(SwarmJournal.persistenceId("n1").id())));
    }

    @Test
    void aJournalOpenedForANewSwarmThatHoldsItWritesNothingAndSaysWhy() {
        TestProbe<SwarmJournal.Reply> first = kit.createTestProbe();
        kit.stop(newJournalWith("n2", first, 5));
        TestProbe<SwarmJournal.Reply> owner = kit.createTestProbe();
        ActorRef<SwarmJournal.Command> journal = kit.spawn(new SwarmJournal("n2", owner.getRef(), SwarmJournal.Snapshots.NONE, true));
        List<SwarmEvent> other = SwarmLedgerTest.journal();
        journal.tell(new SwarmJournal.Append(0, other.subList(0, 8)));
        SwarmJournal.Failed failed = owner.expectMessageClass(SwarmJournal.Failed.class, Duration.ofSeconds(5));
        assertTrue(failed.reason().contains("swarm n2 was started as a new swarm, but the journal already holds 5 of its events"),
                failed.reason());
        journal.tell(new SwarmJournal.Append(8, other.subList(8, 9)));
        owner.expectNoMessage(Duration.ofMillis(200)); // nothing written, nothing confirmed
        assertEquals(events().subList(0, 5), SwarmEvent.Batch.unpacked(journalKit.persistedInStorage(SwarmJournal.persistenceId("n2").id())));
    }

    @Test
    void aBatchSentAgainKeepsOnlyWhatTheJournalLacks() {
        TestProbe<SwarmJournal.Reply> owner = kit.createTestProbe();
        ActorRef<SwarmJournal.Command> journal = newJournalWith("s2", owner, 6);
        List<SwarmEvent> all = events();
        journal.tell(new SwarmJournal.Append(3, all.subList(3, 9))); // 3..5 again, 6..8 new
        assertEquals(9, writtenUpTo(owner, 9));
        journal.tell(new SwarmJournal.Append(0, all.subList(0, 4))); // all of it known
        assertEquals(9, owner.expectMessageClass(SwarmJournal.Written.class).events());
        journal.tell(new SwarmJournal.Append(12, all.subList(12, 14))); // a gap: refused, the count says where to go on
        assertEquals(9, owner.expectMessageClass(SwarmJournal.Written.class).events());
        assertEquals(all.subList(0, 9), SwarmEvent.Batch.unpacked(journalKit.persistedInStorage(SwarmJournal.persistenceId("s2").id())));
    }

    @Test
    void aFailedWriteRestartsTheJournalWhichRecoversAndTakesTheRestAgain() {
        TestProbe<SwarmJournal.Reply> owner = kit.createTestProbe();
        ActorRef<SwarmJournal.Command> journal = newJournalWith("s3", owner, 4);
        List<SwarmEvent> all = events();
        journalKit.failNextPersisted(); // the database goes away for one write
        journal.tell(new SwarmJournal.Append(4, all.subList(4, 8)));
        TestProbe<Object> watcher = kit.createTestProbe();
        watcher.expectTerminated(journal, Duration.ofSeconds(5)); // the journal stops, as Pekko stops a failed write
        // Its owner opens it again: it recovers the 4 events that were written, and takes the rest.
        journal = open("s3", owner);
        SwarmJournal.Ready ready = ready(owner);
        assertEquals(4, ready.events());
        assertEquals(SwarmLedger.replay(all.subList(0, 4)).view(), ready.ledger().view());
        journal.tell(new SwarmJournal.Append(ready.events(), all.subList((int) ready.events(), all.size())));
        assertEquals(all.size(), writtenUpTo(owner, all.size()));
        assertEquals(all, SwarmEvent.Batch.unpacked(journalKit.persistedInStorage(SwarmJournal.persistenceId("s3").id())),
                "each event once, in order");
    }

    @Test
    void aJournalThatDoesNotMakeASwarmIsRefusedNamingTheEvent() {
        List<SwarmEvent> all = events();
        List<Object> foreign = new ArrayList<>(all.subList(0, 2)); // one event per entry, as journals were written before batches
        foreign.add(new AttemptStarted(1, "c", "root/c", 1, "run:root/c", false)); // c before a and b answered
        journalKit.persistForRecovery(SwarmJournal.persistenceId("s4").id(), foreign);
        TestProbe<SwarmJournal.Reply> owner = kit.createTestProbe();
        open("s4", owner);
        SwarmJournal.Failed failed = owner.expectMessageClass(SwarmJournal.Failed.class, Duration.ofSeconds(5));
        assertTrue(failed.reason().contains("journal event 3 (AttemptStarted) cannot follow"), failed.reason());
        assertTrue(failed.reason().contains("swarm s4"), failed.reason());
    }

    private static final SwarmJournal.Snapshots EVERY_4_KEEP_2 = new SwarmJournal.Snapshots(4, 2);

    private static List<Long> snapshotsOf(String swarm) {
        return snapshotKit.persistedInStorage(SwarmJournal.persistenceId(swarm).id()).stream().map(p -> p.first().sequenceNr()).toList();
    }

    @Test
    void aJournalWithSnapshotsRecoversTheFullReplaysStateAtEveryCut() {
        List<SwarmEvent> all = SwarmLedgerTest.journalWithSteps();
        for (int n = 1; n <= all.size(); n++) {
            String swarm = "cut-" + n;
            TestProbe<SwarmJournal.Reply> owner = kit.createTestProbe();
            ActorRef<SwarmJournal.Command> journal = kit.spawn(new SwarmJournal(swarm, owner.getRef(), EVERY_4_KEEP_2));
            ready(owner);
            for (int from = 0; from < n; from += 2) { // in batches of two, as an orchestrator's batches come
                journal.tell(new SwarmJournal.Append(from, all.subList(from, Math.min(n, from + 2))));
                writtenUpTo(owner, Math.min(n, from + 2));
            }
            kit.stop(journal);
            int entries = (n + 1) / 2; // each append is one journal entry
            int last = entries / 4 * 4; // a snapshot at every fourth entry; the two newest are kept
            List<Long> kept = last == 0 ? List.of() : last == 4 ? List.of(4L) : List.of((long) last - 4, (long) last);
            int events = n;
            owner.awaitAssert(Duration.ofSeconds(5), () -> {
                assertEquals(kept, snapshotsOf(swarm), "snapshots after " + events + " events in " + entries + " entries");
                return null;
            });

            TestProbe<SwarmJournal.Reply> again = kit.createTestProbe();
            kit.spawn(new SwarmJournal(swarm, again.getRef(), EVERY_4_KEEP_2));
            SwarmJournal.Ready ready = ready(again);
            assertEquals(n, ready.events());
            assertEquals(SwarmLedger.replay(all.subList(0, n)).view(), ready.ledger().view(), "recovered after " + n + " events");
        }
    }

    @Test
    void recoveryStartsFromTheLatestSnapshotNotFromTheEventsBeforeIt() {
        List<SwarmEvent> all = SwarmLedgerTest.journalWithSteps();
        int at = 9;
        // Events 1..9 here could never be replayed (nine round ends, no round): only the snapshot after them can be read.
        // One event per entry, as journals were written before batches.
        List<Object> stored = new ArrayList<>();
        for (int i = 0; i < at; i++) stored.add(new SwarmEvent.RoundEnded(7));
        stored.addAll(all.subList(at, all.size()));
        String id = SwarmJournal.persistenceId("s5").id();
        journalKit.persistForRecovery(id, stored);
        snapshotKit.persistForRecovery(id, List.of(Pair.create(SnapshotMeta.create(at), SwarmLedger.replay(all.subList(0, at)).snapshot())));
        TestProbe<SwarmJournal.Reply> owner = kit.createTestProbe();
        kit.spawn(new SwarmJournal("s5", owner.getRef(), EVERY_4_KEEP_2));
        SwarmJournal.Ready ready = ready(owner);
        assertEquals(all.size(), ready.events());
        assertEquals(SwarmLedger.replay(all).view(), ready.ledger().view());
    }

    @Test
    void theOwnersLedgerIsItsOwn() {
        List<SwarmEvent> all = events();
        TestProbe<SwarmJournal.Reply> owner = kit.createTestProbe();
        ActorRef<SwarmJournal.Command> journal = newJournalWith("s6", owner, 3);
        kit.stop(journal);
        kit.spawn(new SwarmJournal("s6", owner.getRef(), EVERY_4_KEEP_2));
        SwarmJournal.Ready first = ready(owner);
        first.ledger().apply(all.get(3)); // the owner goes on: the journal's ledger must not move with it
        journal = kit.spawn(new SwarmJournal("s6", owner.getRef(), EVERY_4_KEEP_2));
        SwarmJournal.Ready second = ready(owner);
        journal.tell(new SwarmJournal.Append(3, all.subList(3, 5)));
        assertEquals(5, writtenUpTo(owner, 5));
        assertEquals(SwarmLedger.replay(all.subList(0, 3)).view(), second.ledger().view());
    }

    @Test
    void aSnapshotThatDoesNotHoldTogetherIsRefusedNamingTheSwarmAndNothingIsWritten() {
        SwarmLedger.Snapshot s = SwarmLedger.replay(events().subList(0, 3)).snapshot();
        SwarmLedger.Snapshot orphan = new SwarmLedger.Snapshot(List.of(), false, s.running(), s.usedAgents(), s.trajectories(),
                s.subAgents(), s.turns(), s.tokens(), null, null, null, s.events(), null, s.steps());
        String id = SwarmJournal.persistenceId("s7").id();
        journalKit.persistForRecovery(id, new ArrayList<>(events().subList(0, 3)));
        snapshotKit.persistForRecovery(id, List.of(Pair.create(SnapshotMeta.create(3), orphan)));
        TestProbe<SwarmJournal.Reply> owner = kit.createTestProbe();
        ActorRef<SwarmJournal.Command> journal = kit.spawn(new SwarmJournal("s7", owner.getRef(), EVERY_4_KEEP_2));
        SwarmJournal.Failed failed = owner.expectMessageClass(SwarmJournal.Failed.class, Duration.ofSeconds(5));
        assertTrue(failed.reason().startsWith("the journal of swarm s7 cannot be resumed: its snapshot does not hold together: "
                + "the snapshot's attempt run:root/a belongs to round 1"), failed.reason());
        journal.tell(new SwarmJournal.Append(3, events().subList(3, 5)));
        owner.expectNoMessage(Duration.ofMillis(300));
        assertEquals(3, journalKit.persistedInStorage(id).size(), "nothing written after a refused recovery");
    }
}
