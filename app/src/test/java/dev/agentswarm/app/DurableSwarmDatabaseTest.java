package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.orchestrator.swarm.SwarmEvent;
import dev.agentswarm.orchestrator.swarm.SwarmLedger;
import dev.agentswarm.orchestrator.swarm.SwarmResult;
import dev.agentswarm.orchestrator.swarm.SwarmTrace;
import dev.agentswarm.orchestrator.swarm.SwarmJournal;
import dev.agentswarm.testkit.DurableSwarmScenario;
import dev.agentswarm.testkit.EpisodeHarness;
import dev.agentswarm.testkit.PostgresServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The durable swarm's crash test ({@link DurableSwarmScenario}) on the real journal databases: H2 in a run
 * folder, and PostgreSQL; and a PostgreSQL that is stopped mid-swarm and started again.
 */
class DurableSwarmDatabaseTest {

    private static final Task TASK = Task.of("sum", "Add up the squares in the ledger's entries 0 to 19.");

    private interface Body {
        void run(DurableSwarmScenario scenario) throws Exception;
    }

    private static void onJournal(Config journal, Body body) throws Exception {
        Config cfg = ConfigFactory.parseString("pekko.actor.provider = local").withFallback(journal)
                .withFallback(EpisodeHarness.TEST_CONFIG).resolve();
        ActorTestKit kit = ActorTestKit.create("durable-db", cfg);
        try (Connection reader = JournalDatabase.connect(cfg)) {
            JournalDatabase.createSchema(kit.system(), cfg);
            Serialization serialization = SerializationExtension.get(kit.system().classicSystem());
            body.run(new DurableSwarmScenario(kit, run -> {
                try {
                    return SwarmJournals.events(reader, SwarmJournal.persistenceId(run + ":root").id(), serialization);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }));
        } finally {
            kit.shutdownTestKit();
        }
    }

    private static void everyCrashPoint(DurableSwarmScenario s) throws Exception {
        s.crashAndResume("after-plan", DurableSwarmScenario.AFTER_PLAN);
        s.crashAndResume("mid-round", DurableSwarmScenario.MID_ROUND);
        s.crashAndResume("final", DurableSwarmScenario.BEFORE_ANSWER);
        s.finishedAnswersFromItsJournal("finished");
    }

    @Test
    void onH2InTheRunFolder(@TempDir Path run) throws Exception {
        onJournal(JournalDatabase.settings(SwarmNode.loadConfig(null), run), DurableSwarmDatabaseTest::everyCrashPoint);
    }

    @Test
    void onPostgres() throws Exception {
        assumeTrue(PostgresServer.available() || PostgresServer.required(), "PostgreSQL is not installed (bin/test installs it)");
        try (PostgresServer db = PostgresServer.start()) {
            Config pg = ConfigFactory.parseString(db.journalConfig())
                    .withFallback(SwarmNode.loadConfig(null));
            onJournal(pg, DurableSwarmDatabaseTest::everyCrashPoint);
        }
    }

    private static List<SwarmEvent> journaled(PostgresServer db, String persistenceId, Serialization serialization) throws SQLException {
        try (Connection c = db.connect()) {
            return SwarmJournals.events(c, persistenceId, serialization);
        }
    }

    @Test
    void onPostgresThatGoesAwayMidSwarmAndComesBack() throws Exception {
        assumeTrue(PostgresServer.available() || PostgresServer.required(), "PostgreSQL is not installed (bin/test installs it)");
        try (PostgresServer db = PostgresServer.start()) {
            Config cfg = ConfigFactory.parseString("pekko.actor.provider = local\n"
                    + db.journalConfig())
                    .withFallback(SwarmNode.loadConfig(null)).withFallback(EpisodeHarness.TEST_CONFIG).resolve();
            ActorTestKit kit = ActorTestKit.create("durable-db-down", cfg);
            try {
                JournalDatabase.createSchema(kit.system(), cfg);
                Serialization serialization = SerializationExtension.get(kit.system().classicSystem());
                String id = SwarmJournal.persistenceId("pg-down:root").id();
                DurableSwarmScenario scenario = new DurableSwarmScenario(kit, run -> List.of());
                TestProbe<SwarmResult> result = kit.createTestProbe();
                scenario.harness(new DurableSwarmScenario.Calls()).startDurable("pg-down", TASK, SwarmTrace.inMemory(), result.getRef());
                long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                List<SwarmEvent> before = journaled(db, id, serialization);
                while (before.stream().noneMatch(e -> e instanceof SwarmEvent.RoundPlanned)) {
                    if (System.nanoTime() > until) throw new AssertionError("no plan journaled: " + before);
                    Thread.sleep(5);
                    before = journaled(db, id, serialization);
                }
                db.stopServer(); // the database goes away mid-round: sub-agents go on, their events wait in the orchestrator
                Thread.sleep(4000); // the swarm has its answer within ~2 s (the orchestrator's last turn takes 1.5 s)...
                result.expectNoMessage(Duration.ZERO); // ...but does not give it while the journal lacks events
                db.restart();
                SwarmResult r = result.receiveMessage(Duration.ofSeconds(60));
                assertEquals(StopReason.FINAL_ANSWER, r.stopReason(), r.toString());
                assertEquals(Integer.toString(DurableSwarmScenario.EXPECTED), r.answer());
                List<SwarmEvent> all = journaled(db, id, serialization);
                assertEquals(before, all.subList(0, before.size()), "what was journaled before the database went away is kept");
                SwarmLedger ledger = SwarmLedger.replay(all); // every event once, in order: a gap or a repeat is refused
                assertEquals(Integer.toString(DurableSwarmScenario.EXPECTED), ledger.ended().answer(), "the journal holds the end");
                assertEquals(DurableSwarmScenario.N, DurableSwarmScenario.doneAgents(all).size());
                assertTrue(all.size() > before.size(), "what happened during the outage was written after it");
            } finally {
                kit.shutdownTestKit();
            }
        }
    }
}
