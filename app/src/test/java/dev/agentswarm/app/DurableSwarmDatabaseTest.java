package dev.agentswarm.app;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.orchestrator.swarm.SwarmEvent;
import dev.agentswarm.orchestrator.swarm.SwarmJournal;
import dev.agentswarm.testkit.DurableSwarmScenario;
import dev.agentswarm.testkit.EpisodeHarness;
import dev.agentswarm.testkit.PostgresServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The durable swarm's crash test ({@link DurableSwarmScenario}) on the real journal databases: H2 in a run folder, and PostgreSQL. */
class DurableSwarmDatabaseTest {

    private interface Body {
        void run(DurableSwarmScenario scenario) throws Exception;
    }

    private static void onJournal(Config journal, Body body) throws Exception {
        Config cfg = ConfigFactory.parseString("pekko.actor.provider = local").withFallback(journal)
                .withFallback(EpisodeHarness.TEST_CONFIG).resolve();
        ActorTestKit kit = ActorTestKit.create("durable-db", cfg);
        String url = JournalDatabase.url(cfg);
        try (Connection reader = DriverManager.getConnection(url, cfg.getString(JournalDatabase.DB + ".user"),
                cfg.getString(JournalDatabase.DB + ".password"))) {
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
            Config pg = ConfigFactory.parseString("agentswarm.persistence.database = postgres\n"
                    + "pekko-persistence-jdbc.shared-databases.slick { profile = \"slick.jdbc.PostgresProfile$\", db { url = \""
                    + db.jdbcUrl() + "\", user = \"" + PostgresServer.USER + "\", password = \"\", driver = \"org.postgresql.Driver\" } }")
                    .withFallback(SwarmNode.loadConfig(null));
            onJournal(pg, DurableSwarmDatabaseTest::everyCrashPoint);
        }
    }
}
