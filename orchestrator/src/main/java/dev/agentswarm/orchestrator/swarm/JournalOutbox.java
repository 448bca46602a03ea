package dev.agentswarm.orchestrator.swarm;

import com.typesafe.config.Config;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A durable orchestrator's events on their way to its journal: those recorded and not yet confirmed,
 * and whether the next batch of them may go. One batch is in flight at a time, and batches go at most
 * once per write interval unless something waits on one, so a busy swarm writes few large batches rather
 * than an event per transaction (each a database commit). The actor decides when something waits and
 * schedules the timer; the counting lives here, where it can be checked without one.
 */
final class JournalOutbox {

    /** Events the journal has not confirmed yet, the first being event number {@code confirmed}. */
    private final List<SwarmEvent> unconfirmed = new ArrayList<>();
    private long confirmed;
    /** Events sent to the journal so far: one batch is in flight while this is past {@code confirmed}. */
    private long sent;
    /** Writes start at most once per this many nanoseconds, unless something waits on one (journal.write-interval). */
    private final long writeIntervalNanos;
    private long lastWriteNanos;

    /** An outbox after the {@code confirmed} events a journal already holds. */
    JournalOutbox(long confirmed, long writeIntervalNanos) {
        this.confirmed = confirmed;
        this.sent = confirmed;
        this.writeIntervalNanos = writeIntervalNanos;
    }

    /** {@code agentswarm.swarm.journal.write-interval}, checked. */
    static Duration writeInterval(Config config) {
        Duration d = config.getDuration("agentswarm.swarm.journal.write-interval");
        if (d.isNegative()) throw new IllegalArgumentException("agentswarm.swarm.journal.write-interval is " + d + "; use 0 or more");
        return d;
    }

    void add(SwarmEvent e) {
        unconfirmed.add(e);
    }

    /** Whether a batch may go as far as the journal is concerned: none in flight, and something to send. */
    boolean canSend() {
        return sent <= confirmed && !unconfirmed.isEmpty();
    }

    /** How long until the write interval since the last batch has passed; 0 or less when it has. */
    long waitNanos(long nowNanos) {
        return lastWriteNanos + writeIntervalNanos - nowNanos;
    }

    /** The next batch: every event not confirmed yet, from event number {@code confirmed}; it is in flight until written. */
    SwarmJournal.Append takeBatch(long nowNanos) {
        SwarmJournal.Append batch = new SwarmJournal.Append(confirmed, List.copyOf(unconfirmed));
        sent = confirmed + unconfirmed.size();
        lastWriteNanos = nowNanos;
        return batch;
    }

    /** The journal holds its first {@code events} events; if it refused part of the batch (a gap), the rest goes again. */
    void written(long events) {
        long done = Math.min(events, confirmed + unconfirmed.size());
        if (done > confirmed) {
            unconfirmed.subList(0, (int) (done - confirmed)).clear();
            confirmed = done;
        }
        if (events < sent) sent = confirmed; // the journal refused part of a batch (a gap): send from what it has
    }

    /** A journal opened again holds its first {@code have} events: what it lacks goes again. */
    void reopened(long have) {
        long from = Math.max(have, confirmed);
        unconfirmed.subList(0, (int) Math.min(unconfirmed.size(), from - confirmed)).clear();
        confirmed = from;
        sent = confirmed;
    }

    /** The journal stopped: the batch in flight may not have made it. */
    void inFlightLost() {
        sent = confirmed;
    }

    /** Events the journal has confirmed. */
    long confirmed() {
        return confirmed;
    }

    /** Whether the journal has confirmed every event recorded. */
    boolean allConfirmed() {
        return unconfirmed.isEmpty();
    }
}
