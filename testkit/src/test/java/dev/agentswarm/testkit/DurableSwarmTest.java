package dev.agentswarm.testkit;

import com.typesafe.config.ConfigFactory;
import dev.agentswarm.orchestrator.swarm.SwarmEvent;
import dev.agentswarm.orchestrator.swarm.SwarmJournal;
import java.util.ArrayList;
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
        List<SwarmEvent> out = new ArrayList<>();
        for (Object o : storage.persistedInStorage(SwarmJournal.persistenceId(run + ":root").id())) out.add((SwarmEvent) o);
        return out;
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
    void aFinishedSwarmStartedAgainAnswersFromItsJournalAlone() {
        scenario.finishedAnswersFromItsJournal("finished");
    }
}
