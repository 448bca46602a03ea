package dev.agentswarm.orchestrator.swarm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class JournalOutboxTest {

    private static SwarmEvent round(int n) {
        return new SwarmEvent.RoundEnded(n);
    }

    @Test
    void oneBatchIsInFlightAndWhatAccumulatesMeanwhileGoesInTheNext() {
        JournalOutbox out = new JournalOutbox(0, 0);
        assertFalse(out.canSend(), "nothing recorded, nothing to send");
        out.add(round(1));
        SwarmJournal.Append first = out.takeBatch(0);
        assertEquals(0, first.from());
        assertEquals(List.of(round(1)), first.events());
        out.add(round(2));
        out.add(round(3));
        assertFalse(out.canSend(), "a batch is in flight");
        out.written(1);
        assertEquals(1, out.confirmed());
        assertTrue(out.canSend());
        SwarmJournal.Append second = out.takeBatch(0);
        assertEquals(1, second.from());
        assertEquals(List.of(round(2), round(3)), second.events());
        out.written(3);
        assertTrue(out.allConfirmed());
        assertFalse(out.canSend());
    }

    @Test
    void batchesWaitForTheWriteIntervalSinceTheLastOne() {
        JournalOutbox out = new JournalOutbox(0, 1_000);
        out.add(round(1));
        assertTrue(out.waitNanos(5_000) <= 0, "the first batch goes at once");
        out.takeBatch(5_000);
        out.written(1);
        out.add(round(2));
        assertEquals(600, out.waitNanos(5_400));
        assertTrue(out.waitNanos(6_000) <= 0);
    }

    @Test
    void aBatchTheJournalTookOnlyPartOfIsSentAgainFromWhatItHas() {
        JournalOutbox out = new JournalOutbox(4, 0);
        out.add(round(1));
        out.add(round(2));
        out.add(round(3));
        out.takeBatch(0);
        out.written(5); // one of three: a gap
        assertEquals(5, out.confirmed());
        assertTrue(out.canSend(), "the rest is sent again without waiting for a second reply");
        SwarmJournal.Append again = out.takeBatch(0);
        assertEquals(5, again.from());
        assertEquals(List.of(round(2), round(3)), again.events());
    }

    @Test
    void aJournalOpenedAgainGetsWhatItLacksAndAStoppedOneTheBatchInFlight() {
        JournalOutbox out = new JournalOutbox(2, 0);
        out.add(round(1));
        out.add(round(2));
        out.takeBatch(0);
        out.inFlightLost();
        assertTrue(out.canSend(), "the batch in flight may not have made it");
        out.reopened(3); // the first of the two reached the database
        assertEquals(3, out.confirmed());
        assertEquals(List.of(round(2)), out.takeBatch(0).events());
        out.reopened(1); // a journal with less than was confirmed: nothing confirmed is sent again
        assertEquals(3, out.confirmed());
        assertEquals(List.of(round(2)), out.takeBatch(0).events());
    }

    @Test
    void theWriteIntervalIsZeroOrMore() {
        assertEquals(Duration.ofMillis(250), JournalOutbox.writeInterval(
                ConfigFactory.parseString("agentswarm.swarm.journal.write-interval = 250 ms")));
        assertThrows(IllegalArgumentException.class, () -> JournalOutbox.writeInterval(
                ConfigFactory.parseString("agentswarm.swarm.journal.write-interval = -1 ms")));
    }
}
