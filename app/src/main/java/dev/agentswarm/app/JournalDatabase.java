package dev.agentswarm.app;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.ClassicActorSystemProvider;
import org.apache.pekko.persistence.jdbc.testkit.javadsl.SchemaUtils;

/**
 * Where durable swarms journal (configuration {@code agentswarm.persistence}, defaults in
 * {@code swarm-node.conf}): H2, a file in the run folder that needs no server, or PostgreSQL for a
 * cluster whose nodes share one database ({@code conf/persistence-postgres.conf}). Both go through
 * Pekko's JDBC plugin; this class only fills in the run folder, checks that the database answers, and
 * creates the plugin's tables when they are missing.
 */
public final class JournalDatabase {

    public enum Kind { H2, POSTGRES }

    static final String DB = "pekko-persistence-jdbc.shared-databases.slick.db";

    /** Journal entries up to this size stay in their H2 row (a batch of a few hundred turn records is tens of KiB). */
    static final int INPLACE_LOB_BYTES = 256 * 1024;

    private JournalDatabase() {}

    public static Kind kind(Config config) {
        String name = config.getString("agentswarm.persistence.database");
        try {
            return Kind.valueOf(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("agentswarm.persistence.database is \"" + name + "\"; use h2 or postgres");
        }
    }

    /**
     * The settings of a node that journals for {@code runDir}: with H2, the journal file
     * {@code runDir/journal.mv.db}; with PostgreSQL, the configured database as it is.
     */
    public static Config settings(Config config, Path runDir) {
        if (kind(config) != Kind.H2) return config;
        // AUTO_SERVER off: one process owns a run's journal; a killed owner's lock is taken over on the next open.
        // WRITE_DELAY=0: a commit reaches the file before the journal confirms it. H2's default keeps commits in the
        // process for up to half a second, and a killed process lost events its orchestrator had been told were written.
        // The plugin's event column is a BLOB, which H2 keeps in a LOB store of its own past 256 bytes: a
        // second map written per entry and a cleaner thread (over half of H2's work for a swarm when each
        // event was a row). Kept in the row up to MAX_LENGTH_INPLACE_LOB, an entry is one row write.
        String url = "jdbc:h2:file:" + runDir.toAbsolutePath().resolve("journal") + ";DB_CLOSE_ON_EXIT=FALSE;WRITE_DELAY=0"
                + ";MAX_LENGTH_INPLACE_LOB=" + INPLACE_LOB_BYTES;
        return config.withValue(DB + ".url", ConfigValueFactory.fromAnyRef(url)).withValue(DB + ".profile",
                ConfigValueFactory.fromAnyRef("slick.jdbc.H2Profile$"));
    }

    /** The JDBC URL the journal will use, for messages. */
    public static String url(Config config) {
        return config.getString(DB + ".url");
    }

    /** A connection to the journal database as configured (its URL, user and password). */
    public static Connection connect(Config config) throws SQLException {
        return DriverManager.getConnection(url(config), config.getString(DB + ".user"), config.getString(DB + ".password"));
    }

    /**
     * Checks that the database answers, within {@code agentswarm.persistence.connect-timeout}, before a
     * swarm starts on it: a clear error naming the database rather than a journal failure later.
     */
    public static void check(Config config) {
        String url = url(config);
        if (url.isBlank()) throw new IllegalStateException("no journal database: " + DB + ".url is empty (an H2 journal needs a run folder)");
        Duration limit = config.getDuration("agentswarm.persistence.connect-timeout");
        DriverManager.setLoginTimeout((int) Math.max(1, limit.toSeconds()));
        try (Connection c = connect(config)) {
            if (!c.isValid((int) Math.max(1, limit.toSeconds()))) throw new SQLException("the connection is not valid");
        } catch (SQLException e) {
            throw new IllegalStateException("the journal database " + redacted(url) + " does not answer: " + e.getMessage()
                    + (kind(config) == Kind.POSTGRES ? " (is PostgreSQL running, and SWARM_JOURNAL_URL/USER/PASSWORD right?)" : ""), e);
        }
    }

    /**
     * Creates the plugin's tables when missing (journal, tags, snapshots), if {@code create-schema} is on,
     * then checks them ({@link #checkSchema}).
     */
    public static void createSchema(ClassicActorSystemProvider system, Config config) {
        if (config.getBoolean("agentswarm.persistence.create-schema")) {
            Duration limit = config.getDuration("agentswarm.persistence.connect-timeout").multipliedBy(3);
            try {
                SchemaUtils.createIfNotExists(system).toCompletableFuture().get(limit.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                throw new IllegalStateException("cannot create the journal's tables in " + redacted(url(config)) + ": "
                        + e.getCause().getMessage(), e.getCause());
            } catch (TimeoutException e) {
                throw new IllegalStateException("creating the journal's tables in " + redacted(url(config)) + " took over " + limit, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while creating the journal's tables", e);
            }
        }
        checkSchema(config);
    }

    /** The plugin's tables this build writes, by their configuration: where its name and its columns' names are. */
    private static final List<String> TABLES = List.of("jdbc-journal.tables.event_journal", "jdbc-journal.tables.event_tag",
            "jdbc-snapshot-store.tables.snapshot");

    /**
     * Checks, before a swarm starts, that the journal's tables are the ones this build's plugin writes:
     * each one there with every column it uses. A table made by another version (an older plugin's
     * {@code journal}, a column missing) would otherwise fail the first write or read, mid-swarm.
     * @throws IllegalStateException naming the table, what it lacks and the database (without credentials)
     */
    public static void checkSchema(Config config) {
        String url = url(config);
        try (Connection c = connect(config)) {
            DatabaseMetaData meta = c.getMetaData();
            for (String path : TABLES) {
                Config table = config.getConfig(path);
                String name = table.getString("tableName");
                String schema = table.getString("schemaName");
                Map<String, String> have = columns(meta, schema.isEmpty() ? null : schema, name);
                if (have.isEmpty()) {
                    throw new IllegalStateException("the journal database " + redacted(url) + " has no table " + name
                            + (config.getBoolean("agentswarm.persistence.create-schema") ? ""
                                    : " (agentswarm.persistence.create-schema is off: create it with pekko-persistence-jdbc's schema script)"));
                }
                List<String> missing = new ArrayList<>();
                for (Object column : table.getConfig("columnNames").root().unwrapped().values()) {
                    if (!have.containsKey(column.toString().toLowerCase(Locale.ROOT))) missing.add(column.toString());
                }
                if (!missing.isEmpty()) {
                    throw new IllegalStateException("the journal table " + name + " in " + redacted(url) + " lacks column"
                            + (missing.size() == 1 ? " " : "s ") + String.join(", ", missing) + " (it has " + String.join(", ", have.values())
                            + "): it was not made by this version's schema; move it aside or migrate it, no swarm starts on it");
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the journal's tables in " + redacted(url) + ": " + e.getMessage(), e);
        }
    }

    /** A table's columns, lower-cased name to name (H2 keeps quoted names as written, PostgreSQL lower-cases). */
    private static Map<String, String> columns(DatabaseMetaData meta, String schema, String table) throws SQLException {
        Map<String, String> out = new LinkedHashMap<>();
        for (String candidate : new LinkedHashSet<>(List.of(table, table.toLowerCase(Locale.ROOT), table.toUpperCase(Locale.ROOT)))) {
            String escape = meta.getSearchStringEscape();
            String pattern = escape == null ? candidate : candidate.replace("_", escape + "_").replace("%", escape + "%");
            try (ResultSet rs = meta.getColumns(null, schema, pattern, null)) {
                while (rs.next()) {
                    String column = rs.getString("COLUMN_NAME");
                    out.put(column.toLowerCase(Locale.ROOT), column);
                }
            }
            if (!out.isEmpty()) return out;
        }
        return out;
    }

    /**
     * How many entries (rows) the journal holds for persistence ids starting with {@code prefix}: what a
     * swarm cost the database, in writes.
     */
    public static long entries(Config config, String prefix) {
        Config table = config.getConfig("jdbc-journal.tables.event_journal");
        String schema = table.getString("schemaName");
        String name = (schema.isEmpty() ? "" : '"' + schema + "\".") + '"' + table.getString("tableName") + '"';
        String column = '"' + table.getString("columnNames.persistenceId") + '"';
        try (Connection c = connect(config);
             var query = c.prepareStatement("SELECT COUNT(*) FROM " + name + " WHERE " + column + " LIKE ?")) {
            query.setString(1, prefix.replace("%", "\\%").replace("_", "\\_") + "%");
            try (ResultSet rs = query.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot count the journal's entries in " + redacted(url(config)) + ": " + e.getMessage(), e);
        }
    }

    /** The configured URL without its credentials, for messages. */
    public static String redactedUrl(Config config) {
        return redacted(url(config));
    }

    /** A URL without its query string, where PostgreSQL's password may be, nor H2's {@code ;PASSWORD=} settings. */
    static String redacted(String url) {
        int q = url.indexOf('?');
        String base = q < 0 ? url : url.substring(0, q);
        return base.replaceAll("(?i);(password|user)=[^;]*", "");
    }
}
