package dev.agentswarm.orchestrator.swarm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.apache.pekko.serialization.Serializers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The journal's format version as its serializers write and check it, on every kind of entry a swarm
 * journals: swarm events in their own layout (and as Jackson wrote them before), snapshots and the
 * cluster's swarm entities with Jackson.
 */
class JournalFormatTest {

    private static final ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "journal-format");
    private static final Serialization serialization = SerializationExtension.get(system.classicSystem());

    @AfterAll
    static void stop() {
        system.terminate();
    }

    private static List<Object> everyKindOfEntry() {
        List<Object> entries = new java.util.ArrayList<>(SwarmLedgerTest.journalWithSteps());
        entries.add(new SwarmEvent.Batch(SwarmLedgerTest.journalWithSteps().subList(0, 3)));
        entries.add(SwarmLedger.replay(SwarmLedgerTest.journalWithSteps().subList(0, 8)).snapshot());
        entries.add(new SwarmEntity.Submitted(dev.agentswarm.core.protocol.Task.of("t", "a question"), "{}", List.of("search")));
        entries.add(new SwarmEntity.Subscribed(system.deadLetters()));
        return entries;
    }

    /** What swarm events were written with before they had a layout of their own, and journals of then hold. */
    private static Serializer jackson() {
        try {
            return serialization.serializerFor(dev.agentswarm.core.protocol.ToolResult.class);
        } catch (java.io.NotSerializableException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void everyEntryCarriesTheFormatVersion() {
        Set<Class<?>> seen = new HashSet<>();
        for (Object entry : everyKindOfEntry()) {
            Serializer s = serialization.findSerializerFor(entry);
            if (entry instanceof SwarmEvent) { // its own layout: the version is the first byte
                assertInstanceOf(SwarmEventSerializer.class, s, entry.getClass().getName());
                assertEquals(JournalFormat.VERSION, serialization.serialize(entry).get()[0], entry.getClass().getName());
            } else {
                assertEquals(entry.getClass().getName() + "#" + JournalFormat.VERSION, Serializers.manifestFor(s, entry),
                        "no migration registered for " + entry.getClass().getName() + " in pekko.serialization.jackson.migrations");
            }
            if (entry instanceof SwarmEvent && !(entry instanceof SwarmEvent.Batch)) { // as older journals hold them
                assertEquals(entry.getClass().getName() + "#" + JournalFormat.VERSION, Serializers.manifestFor(jackson(), entry),
                        "no migration registered for " + entry.getClass().getName() + " in pekko.serialization.jackson.migrations");
            }
            seen.add(entry.getClass());
        }
        // Every kind of event is in the sample, so a new event type without a registered version fails here.
        for (Class<?> kind : SwarmEvent.class.getPermittedSubclasses()) {
            if (kind.isRecord()) assertTrue(seen.contains(kind), "the sample lacks a " + kind.getSimpleName());
        }
    }

    @Test
    void anEntryFromANewerBuildIsRefusedWithBothVersionsAndAnOlderManifestIsRead() {
        for (Object entry : everyKindOfEntry()) {
            String name = entry.getClass().getName();
            if (entry instanceof SwarmEvent) {
                byte[] bytes = serialization.serialize(entry).get();
                bytes[0] = (byte) (JournalFormat.VERSION + 1);
                Throwable refused = serialization.deserialize(bytes, SwarmEventSerializer.IDENTIFIER, "E").failed().get();
                JournalFormat.NewerThanThisBuild newer = JournalFormat.newerFormatIn(new RuntimeException("a journal plugin's wrapper", refused));
                assertEquals(JournalFormat.VERSION + 1, newer.found());
                assertEquals("SwarmEvent is in journal format " + (JournalFormat.VERSION + 1) + ", and this build reads format "
                        + JournalFormat.VERSION + " and older", newer.getMessage());
                if (entry instanceof SwarmEvent.Batch) continue; // never written by Jackson
            }
            Serializer s = entry instanceof SwarmEvent ? jackson() : serialization.findSerializerFor(entry);
            byte[] bytes = entry instanceof SwarmEvent ? s.toBinary(entry) : serialization.serialize(entry).get();
            Throwable refused = serialization.deserialize(bytes, s.identifier(), name + "#" + (JournalFormat.VERSION + 1)).failed().get();
            JournalFormat.NewerThanThisBuild newer = JournalFormat.newerFormatIn(new RuntimeException("a journal plugin's wrapper", refused));
            assertSame(refused, newer, "the check's own exception, found through a wrapper");
            assertEquals(JournalFormat.VERSION + 1, newer.found());
            assertEquals(name.substring(name.lastIndexOf('.') + 1) + " is in journal format " + (JournalFormat.VERSION + 1)
                    + ", and this build reads format " + JournalFormat.VERSION + " and older", newer.getMessage());
            // Journals written before the version was recorded have no suffix: format 1.
            Object read = serialization.deserialize(bytes, s.identifier(), name).get();
            if (!(entry instanceof SwarmLedger.Snapshot)) assertEquals(entry, read);
            else assertEquals(SwarmLedger.restore((SwarmLedger.Snapshot) entry).view(), SwarmLedger.restore((SwarmLedger.Snapshot) read).view());
        }
    }

    @Test
    void theCheckAnySerializerMakes() {
        JournalFormat.checkReadable(JournalFormat.VERSION, "SwarmStarted");
        JournalFormat.NewerThanThisBuild newer = assertThrows(JournalFormat.NewerThanThisBuild.class,
                () -> JournalFormat.checkReadable(JournalFormat.VERSION + 3, "SwarmStarted"));
        assertEquals("SwarmStarted", newer.what());
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class, () -> JournalFormat.checkReadable(0, "StepRecorded"));
        assertTrue(none.getMessage().contains("StepRecorded has journal format 0"), none.getMessage());
        assertEquals(null, JournalFormat.newerFormatIn(new IllegalStateException("the database went away")));
    }
}
