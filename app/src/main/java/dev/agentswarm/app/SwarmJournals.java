package dev.agentswarm.app;

import com.typesafe.config.Config;
import dev.agentswarm.orchestrator.swarm.RoundState;
import dev.agentswarm.orchestrator.swarm.SwarmEvent;
import dev.agentswarm.orchestrator.swarm.SwarmLedger;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.pekko.serialization.Serialization;

/**
 * Reads swarms' journals for {@code swarm runs}: each root orchestrator's events, straight from the
 * plugin's tables and through Pekko's serialization, replayed into a {@link SwarmLedger}. An H2 journal
 * that another process holds open belongs to a swarm still running there.
 */
public final class SwarmJournals {

    /** running: its process holds the journal; finished / failed: it ended with / without an answer; resumable: neither. */
    public enum State { RUNNING, FINISHED, FAILED, RESUMABLE, UNREADABLE }

    /** One swarm as its journal tells it. */
    public record Swarm(String where, String runId, State state, String task, int rounds, int subAgents, int answered,
                        long events, String answer, String problem) {}

    private SwarmJournals() {}

    /** The swarms of the run folders under {@code dir} that have an H2 journal, in name order. */
    public static List<Swarm> inRunFolders(Path dir, Serialization serialization) throws IOException {
        List<Swarm> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) return out;
        try (Stream<Path> folders = Files.list(dir)) {
            for (Path f : folders.filter(p -> Files.exists(p.resolve("journal.mv.db"))).sorted().toList()) {
                // IFEXISTS: never create a database where there is none; a held file says the swarm runs.
                String url = "jdbc:h2:file:" + f.toAbsolutePath().resolve("journal") + ";IFEXISTS=TRUE";
                try (Connection c = DriverManager.getConnection(url, "sa", "")) {
                    out.addAll(read(c, f.toString(), serialization));
                } catch (SQLException e) {
                    boolean held = String.valueOf(e.getMessage()).contains("already in use") || e.getErrorCode() == 90020;
                    out.add(new Swarm(f.toString(), SwarmRun.RUN_ID, held ? State.RUNNING : State.UNREADABLE, null, 0, 0, 0, 0,
                            null, held ? null : e.getMessage()));
                }
            }
        }
        return out;
    }

    /** The swarms of a shared journal database (PostgreSQL), as configured. */
    public static List<Swarm> inDatabase(Config config, Serialization serialization) throws SQLException {
        try (Connection c = JournalDatabase.connect(config)) {
            return read(c, JournalDatabase.redactedUrl(config), serialization);
        }
    }

    private static List<Swarm> read(Connection c, String where, Serialization serialization) throws SQLException {
        List<String> ids = new ArrayList<>();
        try (PreparedStatement q = c.prepareStatement("SELECT DISTINCT \"persistence_id\" FROM \"event_journal\""
                + " WHERE \"persistence_id\" LIKE 'swarm|%:root' ORDER BY \"persistence_id\"");
             ResultSet rs = q.executeQuery()) {
            while (rs.next()) ids.add(rs.getString(1));
        }
        List<Swarm> out = new ArrayList<>();
        for (String id : ids) out.add(swarm(c, where, id, serialization));
        return out;
    }

    /** The events of one orchestrator's journal ({@code swarm|RUN:AGENT}), in order. */
    public static List<SwarmEvent> events(Connection c, String persistenceId, Serialization serialization) throws SQLException {
        List<SwarmEvent> events = new ArrayList<>();
        try (PreparedStatement q = c.prepareStatement("SELECT \"event_ser_id\", \"event_ser_manifest\", \"event_payload\""
                + " FROM \"event_journal\" WHERE \"persistence_id\" = ? AND \"deleted\" = false ORDER BY \"sequence_number\"")) {
            q.setString(1, persistenceId);
            try (ResultSet rs = q.executeQuery()) {
                while (rs.next()) {
                    Object e = serialization.deserialize(rs.getBytes(3), rs.getInt(1), rs.getString(2)).get();
                    events.addAll(SwarmEvent.Batch.unpacked(List.of(e))); // an entry is a batch of events, or one (older journals)
                }
            }
        }
        return events;
    }

    private static Swarm swarm(Connection c, String where, String persistenceId, Serialization serialization) throws SQLException {
        String runId = persistenceId.substring("swarm|".length(), persistenceId.length() - ":root".length());
        List<SwarmEvent> events;
        try {
            events = events(c, persistenceId, serialization);
        } catch (RuntimeException e) {
            return new Swarm(where, runId, State.UNREADABLE, null, 0, 0, 0, 0, null, e.getMessage());
        }
        SwarmLedger ledger;
        try {
            ledger = SwarmLedger.replay(events);
        } catch (IllegalStateException e) {
            return new Swarm(where, runId, State.UNREADABLE, null, 0, 0, 0, events.size(), null, e.getMessage());
        }
        int answered = 0;
        for (SwarmLedger.Round r : ledger.rounds()) answered += r.state().count(RoundState.State.DONE);
        SwarmEvent.SwarmEnded end = ledger.ended();
        State state = end == null ? State.RESUMABLE : end.answer() != null ? State.FINISHED : State.FAILED;
        return new Swarm(where, runId, state, ledger.started() == null ? null : ledger.started().prompt(), ledger.rounds().size(),
                ledger.subAgents(), answered, ledger.events(), end == null ? null : end.answer(), null);
    }
}
