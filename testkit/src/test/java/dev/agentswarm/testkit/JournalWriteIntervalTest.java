package dev.agentswarm.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.agentswarm.orchestrator.swarm.SwarmEvent;
import dev.agentswarm.orchestrator.swarm.SwarmJournal;
import dev.agentswarm.orchestrator.swarm.SwarmLedger;
import dev.agentswarm.orchestrator.swarm.SwarmResult;
import dev.agentswarm.orchestrator.swarm.SwarmTrace;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.persistence.testkit.PersistenceTestKitPlugin;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code agentswarm.swarm.journal.write-interval}: a durable swarm groups its events into one write per
 * interval, yet its answer, which waits on the last write, is not held back by the interval.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JournalWriteIntervalTest {

    private final ActorTestKit kit = ActorTestKit.create("write-interval", ConfigFactory.parseString(
                    "agentswarm.swarm.journal.write-interval = 10 s")
            .withFallback(PersistenceTestKitPlugin.getInstance().config())
            .withFallback(ConfigFactory.parseString("pekko.persistence.testkit.events.serialize = on"))
            .withFallback(EpisodeHarness.TEST_CONFIG));
    private final PersistenceTestKit storage = PersistenceTestKit.create(kit.system());
    private final DurableSwarmScenario scenario = new DurableSwarmScenario(kit,
            run -> SwarmEvent.Batch.unpacked(storage.persistedInStorage(SwarmJournal.persistenceId(run + ":root").id())));

    @AfterAll
    void stop() {
        kit.shutdownTestKit();
    }

    @Test
    void aSwarmWritesFewBatchesAndItsAnswerDoesNotWaitForTheInterval() {
        TestProbe<SwarmResult> result = kit.createTestProbe();
        long start = System.nanoTime();
        scenario.harness(new DurableSwarmScenario.Calls()).startDurable("grouped", DurableSwarmScenario.TASK, SwarmTrace.inMemory(),
                result.getRef());
        SwarmResult r = result.receiveMessage(Duration.ofSeconds(30));
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertEquals(Integer.toString(DurableSwarmScenario.EXPECTED), r.answer(), r.toString());
        // The swarm itself takes about 1.5 s (the orchestrator's scripted pause) plus a cold start of up to a
        // second on a quiet 2-core machine, up to 6 s on a loaded one; an answer held by the interval would
        // take 10 s more than its last event.
        assertTrue(tookMs < 8_000, "the answer waited for the write interval: " + tookMs + " ms");

        String id = SwarmJournal.persistenceId("grouped:root").id();
        List<Object> entries = storage.persistedInStorage(id);
        // The first write goes at once; then the interval holds every event until the answer waits on them.
        assertTrue(entries.size() <= 3, "expected the swarm's events in at most 3 writes, got " + entries.size());
        List<SwarmEvent> all = SwarmEvent.Batch.unpacked(entries);
        assertEquals(Integer.toString(DurableSwarmScenario.EXPECTED), SwarmLedger.replay(all).ended().answer(), "the journal holds the end");
        assertEquals(DurableSwarmScenario.N, DurableSwarmScenario.doneAgents(all).size());
    }
}
