package dev.agentswarm.app;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;
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
        String url = "jdbc:h2:file:" + runDir.toAbsolutePath().resolve("journal") + ";DB_CLOSE_ON_EXIT=FALSE";
        return config.withValue(DB + ".url", ConfigValueFactory.fromAnyRef(url)).withValue(DB + ".profile",
                ConfigValueFactory.fromAnyRef("slick.jdbc.H2Profile$"));
    }

    /** The JDBC URL the journal will use, for messages. */
    public static String url(Config config) {
        return config.getString(DB + ".url");
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
        try (Connection c = DriverManager.getConnection(url, config.getString(DB + ".user"), config.getString(DB + ".password"))) {
            if (!c.isValid((int) Math.max(1, limit.toSeconds()))) throw new SQLException("the connection is not valid");
        } catch (SQLException e) {
            throw new IllegalStateException("the journal database " + redacted(url) + " does not answer: " + e.getMessage()
                    + (kind(config) == Kind.POSTGRES ? " (is PostgreSQL running, and SWARM_JOURNAL_URL/USER/PASSWORD right?)" : ""), e);
        }
    }

    /** Creates the plugin's tables when missing (journal, tags, snapshots), if {@code create-schema} is on. */
    public static void createSchema(ClassicActorSystemProvider system, Config config) {
        if (!config.getBoolean("agentswarm.persistence.create-schema")) return;
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

    /** The configured URL without its query string, for messages. */
    public static String redactedUrl(Config config) {
        return redacted(url(config));
    }

    /** A URL without its query string, where passwords may be. */
    static String redacted(String url) {
        int q = url.indexOf('?');
        return q < 0 ? url : url.substring(0, q);
    }
}
