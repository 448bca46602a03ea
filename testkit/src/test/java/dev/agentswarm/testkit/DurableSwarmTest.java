package dev.agentswarm.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.orchestrator.swarm.SwarmLedger;
import dev.agentswarm.orchestrator.swarm.SwarmResult;
import dev.agentswarm.orchestrator.swarm.SwarmTrace;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import dev.agentswarm.orchestrator.swarm.SwarmEvent;
import dev.agentswarm.orchestrator.swarm.SwarmJournal;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.persistence.testkit.PersistenceTestKitPlugin;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@link DurableSwarmScenario} on Pekko's in-memory journal (events serialised as on a database): a swarm
 * of 20 sub-agents whose node crashes after the plan, mid-round and before the final answer resumes
 * with no sub-agent run twice and the uninterrupted answer. The app module runs it on H2 and PostgreSQL.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DurableSwarmTest {

    private final ActorTestKit kit = ActorTestKit.create("durable", PersistenceTestKitPlugin.getInstance().config()
            .withFallback(ConfigFactory.parseString("pekko.persistence.testkit.events.serialize = on"))
            .withFallback(EpisodeHarness.TEST_CONFIG));
    private final PersistenceTestKit storage = PersistenceTestKit.create(kit.system());
    private final DurableSwarmScenario scenario = new DurableSwarmScenario(kit, run -> {
        return SwarmEvent.Batch.unpacked(storage.persistedInStorage(SwarmJournal.persistenceId(run + ":root").id()));
    });

    @AfterAll
    void stop() {
        kit.shutdownTestKit();
    }

    @Test
    void killedAfterThePlanItResumesWithoutPlanningAgain() throws Exception {
        scenario.crashAndResume("after-plan", DurableSwarmScenario.AFTER_PLAN);
    }

    @Test
    void killedMidRoundItRunsOnlyWhatHadNotAnswered() throws Exception {
        scenario.crashAndResume("mid-round", DurableSwarmScenario.MID_ROUND);
    }

    @Test
    void killedBeforeTheFinalAnswerItAnswersFromTheJournal() throws Exception {
        scenario.crashAndResume("final", DurableSwarmScenario.BEFORE_ANSWER);
    }

    @Test
    void aJournalWriteThatFailsMidRunIsWrittenAgainAndTheSwarmGoesOn() throws Exception {
        DurableSwarmScenario.Calls calls = new DurableSwarmScenario.Calls();
        TestProbe<SwarmResult> result = kit.createTestProbe();
        scenario.harness(calls).startDurable("db-down", Task.of("sum", "Add up the squares in the ledger's entries 0 to 19."),
                SwarmTrace.inMemory(), result.getRef());
        String id = SwarmJournal.persistenceId("db-down:root").id();
        long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (SwarmEvent.Batch.unpacked(storage.persistedInStorage(id)).stream().noneMatch(e -> e instanceof SwarmEvent.RoundPlanned)) {
            if (System.nanoTime() > until) throw new AssertionError("no plan journaled");
            Thread.sleep(5);
        }
        storage.failNextNPersisted(id, 2); // the database goes away for two writes: the journal stops, is opened again
        SwarmResult r = result.receiveMessage(Duration.ofSeconds(60));
        assertEquals(Integer.toString(DurableSwarmScenario.EXPECTED), r.answer(), r.toString());
        List<SwarmEvent> all = SwarmEvent.Batch.unpacked(storage.persistedInStorage(id));
        SwarmLedger ledger = SwarmLedger.replay(all); // every event once, in order: a gap or a repeat would be refused
        assertEquals(Integer.toString(DurableSwarmScenario.EXPECTED), ledger.ended().answer(), "the journal holds the end");
        assertEquals(DurableSwarmScenario.N, DurableSwarmScenario.doneAgents(all).size());
        assertTrue(calls.policyBefore.get("root").equals(List.of(1, 2)), "the orchestrator asked twice: " + calls.policyBefore.get("root"));
    }

    @Test
    void aFinishedSwarmStartedAgainAnswersFromItsJournalAlone() {
        scenario.finishedAnswersFromItsJournal("finished");
    }
}
