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
import org.apache.pekko.persistence.testkit.PersistenceTestKitPlugin;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The write-behind journal on Pekko's in-memory journal, whose writes and reads can be made to fail. */
class SwarmJournalTest {

    private static final ActorTestKit kit = ActorTestKit.create(PersistenceTestKitPlugin.getInstance().config()
            .withFallback(com.typesafe.config.ConfigFactory.parseString(
                    "pekko.persistence.testkit.events.serialize = on\npekko.loglevel = ERROR")));
    private static final PersistenceTestKit journalKit = PersistenceTestKit.create(kit.system());

    @BeforeEach
    void clear() {
        journalKit.clearAll();
    }

    @AfterAll
    static void stop() {
        kit.shutdownTestKit();
    }

    private static List<SwarmEvent> events() {
        return SwarmLedgerTest.journal();
    }

    private static ActorRef<SwarmJournal.Command> open(String swarm, TestProbe<SwarmJournal.Reply> owner) {
        return kit.spawn(new SwarmJournal(swarm, owner.getRef()));
    }

    /** A new swarm's journal holding the first {@code n} events, written. */
    private static ActorRef<SwarmJournal.Command> newJournalWith(String swarm, TestProbe<SwarmJournal.Reply> owner, int n) {
        ActorRef<SwarmJournal.Command> journal = open(swarm, owner);
        assertEquals(List.of(), owner.expectMessageClass(SwarmJournal.Ready.class).events());
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
        assertEquals(List.of(), owner.expectMessageClass(SwarmJournal.Ready.class).events());
        List<SwarmEvent> all = events();
        journal.tell(new SwarmJournal.Append(0, all.subList(0, 5)));
        journal.tell(new SwarmJournal.Append(5, all.subList(5, all.size())));
        assertEquals(all.size(), writtenUpTo(owner, all.size()));
        kit.stop(journal);

        TestProbe<SwarmJournal.Reply> again = kit.createTestProbe();
        open("s1", again);
        assertEquals(all, again.expectMessageClass(SwarmJournal.Ready.class).events(), "every event, in order");
        assertEquals(all.size(), journalKit.persistedInStorage(SwarmJournal.persistenceId("s1").id()).size());
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
        assertEquals(all.subList(0, 9), journalKit.persistedInStorage(SwarmJournal.persistenceId("s2").id()));
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
        SwarmJournal.Ready ready = owner.expectMessageClass(SwarmJournal.Ready.class, Duration.ofSeconds(5));
        assertEquals(all.subList(0, 4), ready.events());
        journal.tell(new SwarmJournal.Append(ready.events().size(), all.subList(ready.events().size(), all.size())));
        assertEquals(all.size(), writtenUpTo(owner, all.size()));
        assertEquals(all, journalKit.persistedInStorage(SwarmJournal.persistenceId("s3").id()), "each event once, in order");
    }

    @Test
    void aJournalThatDoesNotMakeASwarmIsRefusedNamingTheEvent() {
        List<SwarmEvent> all = events();
        List<Object> foreign = new ArrayList<>(all.subList(0, 2));
        foreign.add(new AttemptStarted(1, "c", "root/c", 1, "run:root/c", false)); // c before a and b answered
        journalKit.persistForRecovery(SwarmJournal.persistenceId("s4").id(), foreign);
        TestProbe<SwarmJournal.Reply> owner = kit.createTestProbe();
        open("s4", owner);
        SwarmJournal.Failed failed = owner.expectMessageClass(SwarmJournal.Failed.class, Duration.ofSeconds(5));
        assertTrue(failed.reason().contains("journal event 3 (AttemptStarted) cannot follow"), failed.reason());
        assertTrue(failed.reason().contains("swarm s4"), failed.reason());
    }
}
