package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.orchestrator.swarm.Join;
import dev.agentswarm.orchestrator.swarm.Plan;
import dev.agentswarm.orchestrator.swarm.SubAgentMode;
import dev.agentswarm.orchestrator.swarm.SubTask;
import dev.agentswarm.orchestrator.swarm.SwarmEvent;
import dev.agentswarm.orchestrator.swarm.SwarmEvent.AttemptEnded;
import dev.agentswarm.orchestrator.swarm.SwarmEvent.AttemptStarted;
import dev.agentswarm.orchestrator.swarm.SwarmEvent.Outcome;
import dev.agentswarm.orchestrator.swarm.SwarmEvent.RoundEnded;
import dev.agentswarm.orchestrator.swarm.SwarmEvent.RoundPlanned;
import dev.agentswarm.orchestrator.swarm.SwarmEvent.SwarmEnded;
import dev.agentswarm.orchestrator.swarm.SwarmLedger;
import dev.agentswarm.testkit.PostgresServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The journal's databases for real: swarm events written through Pekko's JDBC plugin and read back by a new process's actor system. */
class JournalDatabaseTest {

    /** A swarm's ledger, journaled: what the orchestrator's persistence rests on, without its episodes. */
    static final class Journaled extends EventSourcedBehavior<Journaled.Command, SwarmEvent, SwarmLedger> {
        interface Command {}

        record Append(List<SwarmEvent> events, ActorRef<Long> replyTo) implements Command {}

        record Read(ActorRef<SwarmLedger.View> replyTo) implements Command {}

        Journaled(String swarm) {
            super(PersistenceId.of("swarm", swarm));
        }

        @Override
        public SwarmLedger emptyState() {
            return new SwarmLedger();
        }

        @Override
        public CommandHandler<Command, SwarmEvent, SwarmLedger> commandHandler() {
            return newCommandHandlerBuilder().forAnyState()
                    .onCommand(Append.class, (state, c) -> Effect().persist(c.events()).thenReply(c.replyTo(), SwarmLedger::events))
                    .onCommand(Read.class, (state, c) -> Effect().reply(c.replyTo(), state.view()))
                    .build();
        }

        @Override
        public EventHandler<SwarmLedger, SwarmEvent> eventHandler() {
            return (state, event) -> state.apply(event);
        }
    }

    static List<SwarmEvent> events() {
        List<SubTask> tasks = new ArrayList<>();
        Map<String, String> agents = new java.util.LinkedHashMap<>();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            tasks.add(new SubTask("s" + i, "part " + i + " of the question, with unicode: é ∑ 🙂", SubAgentMode.GENERAL,
                    List.of("search"), List.of()));
            agents.put("s" + i, "root/s" + i);
            ids.add("s" + i);
        }
        List<SwarmEvent> out = new ArrayList<>();
        out.add(new RoundPlanned(1, 2, new Plan(tasks, List.of(ids), Join.ALL), agents));
        for (int i = 0; i < 20; i++) out.add(new AttemptStarted(1, "s" + i, "root/s" + i, 1, "run:root/s" + i, false));
        for (int i = 0; i < 20; i++) {
            out.add(new AttemptEnded("run:root/s" + i, Outcome.DONE, "answer " + i, 2, 30 + i, 2, "trajectories.jsonl#" + i));
        }
        out.add(new RoundEnded(1));
        out.add(new SwarmEnded("all twenty", StopReason.FINAL_ANSWER, null, 3, 50));
        return out;
    }

    private static SwarmLedger.View journalThenRecover(Config config) throws Exception {
        List<SwarmEvent> events = events();
        JournalDatabase.check(config);
        ActorSystem<Void> writer = ActorSystem.create(Behaviors.empty(), "journal-writer", config);
        try {
            JournalDatabase.createSchema(writer, config);
            ActorRef<Journaled.Command> swarm = writer.systemActorOf(new Journaled("run-1"), "swarm-run-1",
                    org.apache.pekko.actor.typed.Props.empty());
            // Several appends, as a live orchestrator writes: the plan, each start and each answer.
            long written = 0;
            for (int from = 0; from < events.size(); from += 7) {
                List<SwarmEvent> part = events.subList(from, Math.min(events.size(), from + 7));
                written = AskPattern.<Journaled.Command, Long>ask(swarm, r -> new Journaled.Append(part, r), Duration.ofSeconds(30),
                        writer.scheduler()).toCompletableFuture().get(30, TimeUnit.SECONDS);
            }
            assertEquals(events.size(), written);
        } finally {
            writer.terminate();
            writer.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
        ActorSystem<Void> reader = ActorSystem.create(Behaviors.empty(), "journal-reader", config);
        try {
            JournalDatabase.createSchema(reader, config); // again: the tables exist, nothing changes
            ActorRef<Journaled.Command> swarm = reader.systemActorOf(new Journaled("run-1"), "swarm-run-1",
                    org.apache.pekko.actor.typed.Props.empty());
            return AskPattern.<Journaled.Command, SwarmLedger.View>ask(swarm, Journaled.Read::new, Duration.ofSeconds(30),
                    reader.scheduler()).toCompletableFuture().get(30, TimeUnit.SECONDS);
        } finally {
            reader.terminate();
            reader.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
    }

    private static Config node(String overrides) {
        return ConfigFactory.parseString("pekko.actor.provider = local\n" + overrides).withFallback(SwarmNode.loadConfig(null)).resolve();
    }

    @Test
    void h2InTheRunFolderKeepsASwarmsEventsAcrossProcesses(@TempDir Path run) throws Exception {
        Config config = JournalDatabase.settings(node(""), run);
        assertEquals(JournalDatabase.Kind.H2, JournalDatabase.kind(config));
        SwarmLedger.View recovered = journalThenRecover(config);
        assertEquals(SwarmLedger.replay(events()).view(), recovered);
        assertTrue(Files.isRegularFile(run.resolve("journal.mv.db")), "the journal is a file in the run folder");
    }

    @Test
    void postgresKeepsASwarmsEventsAcrossProcesses() throws Exception {
        assumeTrue(PostgresServer.available() || PostgresServer.required(), "PostgreSQL is not installed (bin/test installs it)");
        try (PostgresServer db = PostgresServer.start()) {
            Config config = JournalDatabase.settings(node(
                    "agentswarm.persistence.database = postgres\n"
                            + "pekko-persistence-jdbc.shared-databases.slick { profile = \"slick.jdbc.PostgresProfile$\", db { url = \""
                            + db.jdbcUrl() + "\", user = \"" + PostgresServer.USER + "\", password = \"\", driver = \"org.postgresql.Driver\" } }"),
                    Path.of("unused"));
            assertEquals(JournalDatabase.Kind.POSTGRES, JournalDatabase.kind(config));
            SwarmLedger.View recovered = journalThenRecover(config);
            assertEquals(SwarmLedger.replay(events()).view(), recovered);
            try (var c = db.connect(); var rs = c.createStatement().executeQuery(
                    "SELECT count(*) FROM event_journal WHERE persistence_id = 'swarm|run-1'")) {
                rs.next();
                assertEquals(events().size(), rs.getInt(1), "one row per event");
            }
        }
    }

    @Test
    void aDatabaseThatDoesNotAnswerIsNamedBeforeAnySwarmStarts() throws Exception {
        int closed;
        try (var s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        Config config = node("agentswarm.persistence { database = postgres, connect-timeout = 2 s }\n"
                + "pekko-persistence-jdbc.shared-databases.slick.db { url = \"jdbc:postgresql://127.0.0.1:" + closed
                + "/agentswarm?password=secret\", driver = \"org.postgresql.Driver\" }");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> JournalDatabase.check(config));
        assertTrue(e.getMessage().contains("jdbc:postgresql://127.0.0.1:" + closed + "/agentswarm does not answer"), e.getMessage());
        assertTrue(!e.getMessage().contains("secret"), "no credentials in the message");
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> JournalDatabase.kind(node("agentswarm.persistence.database = mysql")));
        assertTrue(bad.getMessage().contains("use h2 or postgres"), bad.getMessage());
    }
}
