package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
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
import dev.agentswarm.orchestrator.swarm.SwarmEventSerializer;
import dev.agentswarm.orchestrator.swarm.SwarmJournal;
import dev.agentswarm.orchestrator.swarm.SwarmLedger;
import dev.agentswarm.testkit.PostgresServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
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

/**
 * The journal's databases for real: swarm events and snapshots written through Pekko's JDBC plugin and read
 * back by a new process's actor system; a journal from a newer build, and tables that are not this build's.
 */
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

    /** A format the next build might write: the same fields, version 2. */
    public static final class FormatTwo extends org.apache.pekko.serialization.jackson.JacksonMigration {
        @Override
        public int currentVersion() {
            return 2;
        }

        @Override
        public com.fasterxml.jackson.databind.JsonNode transform(int fromVersion, com.fasterxml.jackson.databind.JsonNode json) {
            return json;
        }
    }

    /**
     * Writes {@code events} through a {@link SwarmJournal} in batches of 7 (snapshots as {@code writerConfig}
     * says), then opens the journal in a new actor system on {@code config}: what it answers.
     */
    private static SwarmJournal.Reply writeThenOpen(Config writerConfig, Config config, String swarm, List<SwarmEvent> events)
            throws Exception {
        write(writerConfig, swarm, events);
        return open(config, swarm);
    }

    /** Writes {@code events} through a {@link SwarmJournal} in appends of 7, each one journal entry. */
    private static void write(Config writerConfig, String swarm, List<SwarmEvent> events) throws Exception {
        JournalDatabase.check(writerConfig);
        ActorTestKit writer = ActorTestKit.create("swarm-journal-writer", writerConfig);
        try {
            JournalDatabase.createSchema(writer.system(), writerConfig);
            TestProbe<SwarmJournal.Reply> owner = writer.createTestProbe();
            ActorRef<SwarmJournal.Command> journal = writer.spawn(SwarmJournal.create(swarm, owner.getRef()));
            owner.expectMessageClass(SwarmJournal.Ready.class, Duration.ofSeconds(30));
            for (int from = 0; from < events.size(); from += 7) {
                journal.tell(new SwarmJournal.Append(from, events.subList(from, Math.min(events.size(), from + 7))));
                long want = Math.min(events.size(), from + 7);
                long got = 0;
                while (got < want) got = owner.expectMessageClass(SwarmJournal.Written.class, Duration.ofSeconds(30)).events();
            }
            // The last snapshot is stored after its entry is confirmed: wait for it before the writer goes.
            int every = writerConfig.getInt("agentswarm.swarm.journal.snapshot-every");
            long entries = (events.size() + 6) / 7;
            long lastSnapshot = every == 0 ? 0 : entries / every * every;
            long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (lastSnapshot > 0 && newestSnapshot(writerConfig, swarm) < lastSnapshot) {
                if (System.nanoTime() > until) throw new AssertionError("no snapshot at entry " + lastSnapshot + " of " + swarm);
                Thread.sleep(20);
            }
            // Older snapshots are deleted after the newest is stored: wait for that too.
            int keep = writerConfig.getInt("agentswarm.swarm.journal.keep-snapshots");
            while (lastSnapshot > 0 && snapshotCount(writerConfig, swarm) > keep) {
                if (System.nanoTime() > until) throw new AssertionError("more than " + keep + " snapshots of " + swarm + " kept");
                Thread.sleep(20);
            }
        } finally {
            writer.shutdownTestKit();
        }
    }

    /** Opens the journal of {@code swarm} in a new actor system on {@code config}: what it answers. */
    private static SwarmJournal.Reply open(Config config, String swarm) throws Exception {
        ActorTestKit reader = ActorTestKit.create("swarm-journal-reader", config);
        try {
            TestProbe<SwarmJournal.Reply> owner = reader.createTestProbe();
            reader.spawn(SwarmJournal.create(swarm, owner.getRef()));
            return owner.expectMessageClass(SwarmJournal.Reply.class, Duration.ofSeconds(30));
        } finally {
            reader.shutdownTestKit();
        }
    }

    private static long snapshotCount(Config config, String swarm) throws java.sql.SQLException {
        return ofSnapshots(config, swarm, "count(*)");
    }

    private static long newestSnapshot(Config config, String swarm) throws java.sql.SQLException {
        return ofSnapshots(config, swarm, "max(\"sequence_number\")");
    }

    /** {@code aggregate} over swarm {@code swarm}'s rows of the snapshot table. */
    private static long ofSnapshots(Config config, String swarm, String aggregate) throws java.sql.SQLException {
        try (Connection c = JournalDatabase.connect(config); var rs = c.createStatement().executeQuery(
                "SELECT " + aggregate + " FROM \"snapshot\" WHERE \"persistence_id\" = 'swarm|" + swarm + "'")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static Config snapshotEvery(int n, Config config) {
        return ConfigFactory.parseString("agentswarm.swarm.journal.snapshot-every = " + n).withFallback(config);
    }

    /** A journal of {@link #events()} with a snapshot every 2 entries recovers the full replay's state; two snapshots are kept. */
    private static void snapshotsRecoverTheFullReplay(Config config, java.util.function.Supplier<Connection> db) throws Exception {
        List<SwarmEvent> events = events();
        SwarmJournal.Reply reply = writeThenOpen(snapshotEvery(2, config), snapshotEvery(2, config), "snapshots", events);
        SwarmJournal.Ready ready = assertInstanceOf(SwarmJournal.Ready.class, reply, reply.toString());
        assertEquals(events.size(), ready.events());
        assertEquals(SwarmLedger.replay(events).view(), ready.ledger().view());
        try (Connection c = db.get(); var rs = c.createStatement().executeQuery(
                "SELECT \"sequence_number\" FROM \"snapshot\" WHERE \"persistence_id\" = 'swarm|snapshots' ORDER BY 1")) {
            List<Long> kept = new ArrayList<>();
            while (rs.next()) kept.add(rs.getLong(1));
            // Appends of 7 events (43: 7 entries): a snapshot after entries 2, 4 and 6; the newest two kept.
            assertEquals(List.of(4L, 6L), kept, "snapshots kept");
        }
    }

    private static Connection h2(Config config) {
        try {
            return JournalDatabase.connect(config);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void h2KeepsSnapshotsAndRecoversFromThem(@TempDir Path run) throws Exception {
        Config config = JournalDatabase.settings(node(""), run);
        snapshotsRecoverTheFullReplay(config, () -> h2(config));
    }

    @Test
    void aJournalFromANewerBuildIsRefusedNamingTheSwarmAndBothVersionsAndIsNotWritten(@TempDir Path run) throws Exception {
        Config reader = snapshotEvery(2, JournalDatabase.settings(node(""), run));
        String newer = "pekko.serialization.jackson.migrations.\"dev.agentswarm.orchestrator.swarm.%s\" = \""
                + FormatTwo.class.getName() + "\"";
        // Events: every entry says format 2 (no snapshot, which would stand in for them), as a newer build would write.
        write(snapshotEvery(0, reader), "newer-events", events());
        long entries;
        try (Connection c = h2(reader); var rows = c.createStatement(java.sql.ResultSet.TYPE_FORWARD_ONLY,
                java.sql.ResultSet.CONCUR_UPDATABLE).executeQuery("SELECT \"persistence_id\", \"sequence_number\", \"event_payload\" FROM \"event_journal\""
                + " WHERE \"persistence_id\" = 'swarm|newer-events'")) {
            entries = 0;
            while (rows.next()) {
                byte[] payload = rows.getBytes(3);
                payload[0] = 2;
                rows.updateBytes(3, payload);
                rows.updateRow();
                entries++;
            }
        }
        SwarmJournal.Reply reply = open(reader, "newer-events");
        SwarmJournal.Failed failed = assertInstanceOf(SwarmJournal.Failed.class, reply, reply.toString());
        assertEquals("the journal of swarm newer-events was written by a newer version of agentswarm: SwarmEvent is in "
                + "journal format 2, and this build reads format 1 and older; nothing was resumed and nothing is written to it",
                failed.reason());
        // A snapshot in format 2 (the events in 1): refused alike, rather than replayed from the events around it.
        Config snapshotWriter = ConfigFactory.parseString(newer.formatted("SwarmLedger$Snapshot")).withFallback(reader);
        reply = writeThenOpen(snapshotWriter, reader, "newer-snapshot", events());
        failed = assertInstanceOf(SwarmJournal.Failed.class, reply, reply.toString());
        assertTrue(failed.reason().startsWith("the journal of swarm newer-snapshot was written by a newer version of agentswarm: "
                + "SwarmLedger$Snapshot is in journal format 2, and this build reads format 1"), failed.reason());
        try (Connection c = h2(reader); var rs = c.createStatement().executeQuery(
                "SELECT count(*) FROM \"event_journal\" WHERE \"persistence_id\" = 'swarm|newer-events'")) {
            rs.next();
            assertEquals(entries, rs.getInt(1), "the refused journal is as its writer left it");
        }
    }

    @Test
    void aJournalTableThatIsNotThisBuildsIsNamedWithTheDatabaseBeforeAnySwarmStarts(@TempDir Path run) throws Exception {
        Config config = ConfigFactory.parseString("pekko-persistence-jdbc.shared-databases.slick.db.url = \"jdbc:h2:file:"
                + run.toAbsolutePath().resolve("journal") + ";DB_CLOSE_ON_EXIT=FALSE;USER=sa;PASSWORD=secret\"\n"
                + "pekko-persistence-jdbc.shared-databases.slick.db.password = secret").withFallback(JournalDatabase.settings(node(""), run));
        try (Connection c = h2(config)) {
            // An older layout: the event table without the serializer's manifest column.
            c.createStatement().execute("CREATE TABLE \"event_journal\" (\"ordering\" BIGINT, \"deleted\" BOOLEAN, "
                    + "\"persistence_id\" VARCHAR(255), \"sequence_number\" BIGINT, \"writer\" VARCHAR, \"write_timestamp\" BIGINT, "
                    + "\"adapter_manifest\" VARCHAR, \"event_payload\" BLOB, \"event_ser_id\" INTEGER, \"meta_payload\" BLOB, "
                    + "\"meta_ser_id\" INTEGER, \"meta_ser_manifest\" VARCHAR)");
        }
        ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "schema-check", config);
        try {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> JournalDatabase.createSchema(system, config));
            assertTrue(e.getMessage().startsWith("the journal table event_journal in jdbc:h2:file:" + run.toAbsolutePath().resolve("journal")
                    + ";DB_CLOSE_ON_EXIT=FALSE lacks column event_ser_manifest"), e.getMessage());
            assertTrue(!e.getMessage().contains("secret"), "no credentials in the message");
        } finally {
            system.terminate();
            system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * Run in a JVM of its own by {@link #h2KeepsWhatItConfirmedWhenItsProcessIsKilledAtOnce}: journals the
     * first {@code args[1]} events of {@link #events()} on H2 in {@code args[0]}, says so once they are
     * confirmed, and waits to be killed.
     */
    public static void main(String[] args) throws Exception {
        Config config = JournalDatabase.settings(node(""), Path.of(args[0]));
        int n = Integer.parseInt(args[1]);
        ActorTestKit kit = ActorTestKit.create("killed-writer", config);
        JournalDatabase.createSchema(kit.system(), config);
        TestProbe<SwarmJournal.Reply> owner = kit.createTestProbe();
        ActorRef<SwarmJournal.Command> journal = kit.spawn(SwarmJournal.create("killed", owner.getRef()));
        owner.expectMessageClass(SwarmJournal.Ready.class, Duration.ofSeconds(30));
        journal.tell(new SwarmJournal.Append(0, events().subList(0, n)));
        long got = 0;
        while (got < n) got = owner.expectMessageClass(SwarmJournal.Written.class, Duration.ofSeconds(30)).events();
        System.out.println("WRITTEN " + got);
        System.out.flush();
        Thread.sleep(60_000);
        System.exit(1);
    }

    @Test
    void h2KeepsWhatItConfirmedWhenItsProcessIsKilledAtOnce(@TempDir Path run) throws Exception {
        int n = events().size();
        Process writer = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m", "-cp",
                System.getProperty("java.class.path"), JournalDatabaseTest.class.getName(), run.toString(), Integer.toString(n))
                .redirectErrorStream(true).start();
        StringBuilder output = new StringBuilder();
        try (var lines = new java.io.BufferedReader(new java.io.InputStreamReader(writer.getInputStream(),
                java.nio.charset.StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null && !line.startsWith("WRITTEN ")) output.append(line).append('\n');
            assertTrue(line != null, "the writer ended before its events were confirmed:\n" + output);
        } finally {
            writer.destroyForcibly(); // SIGKILL, the moment the journal confirmed: no shutdown, no flush
            writer.waitFor(30, TimeUnit.SECONDS);
        }
        Config config = JournalDatabase.settings(node(""), run);
        try (Connection c = h2(config); var rs = c.createStatement().executeQuery(
                "SELECT \"event_payload\" FROM \"event_journal\" WHERE \"persistence_id\" = 'swarm|killed' ORDER BY \"sequence_number\"")) {
            List<SwarmEvent> kept = new ArrayList<>();
            while (rs.next()) kept.addAll(SwarmEvent.Batch.unpacked(List.of(SwarmEventSerializer.decode(rs.getBytes(1)))));
            assertEquals(events().subList(0, n), kept, "every event the journal confirmed is in the file");
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
    void postgresKeepsASwarmsEventsAndSnapshotsAcrossProcessesAndItsTablesAreChecked() throws Exception {
        assumeTrue(PostgresServer.available() || PostgresServer.required(), "PostgreSQL is not installed (bin/test installs it)");
        try (PostgresServer db = PostgresServer.start()) {
            Config config = JournalDatabase.settings(node(
                    db.journalConfig()),
                    Path.of("unused"));
            assertEquals(JournalDatabase.Kind.POSTGRES, JournalDatabase.kind(config));
            SwarmLedger.View recovered = journalThenRecover(config);
            assertEquals(SwarmLedger.replay(events()).view(), recovered);
            try (var c = db.connect(); var rs = c.createStatement().executeQuery(
                    "SELECT count(*) FROM event_journal WHERE persistence_id = 'swarm|run-1'")) {
                rs.next();
                assertEquals(events().size(), rs.getInt(1), "one row per event");
            }
            snapshotsRecoverTheFullReplay(config, () -> {
                try {
                    return db.connect();
                } catch (java.sql.SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            try (var c = db.connect()) {
                c.createStatement().execute("ALTER TABLE snapshot DROP COLUMN snapshot_ser_manifest");
            }
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> JournalDatabase.checkSchema(config));
            assertTrue(e.getMessage().startsWith("the journal table snapshot in " + db.jdbcUrl() + " lacks column snapshot_ser_manifest"),
                    e.getMessage());
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
