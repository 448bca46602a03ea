package dev.agentswarm.environments.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.sqlite.ProgressHandler;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteConnection;
import org.sqlite.SQLiteLimits;

/**
 * One episode's database: a fresh in-memory SQLite, built from its task's table, with what a hostile
 * query could reach switched off: no extension loading, no ATTACH (the attached-database limit is
 * 0, so no file on the host can be opened), a cap on the length of any string or blob. Queries run
 * with a time limit, and results are rendered as a capped text table. Not thread-safe: one
 * episode's calls arrive one at a time.
 */
final class EpisodeDatabase implements AutoCloseable {

    private static final int MAX_LENGTH = 1_000_000;

    private final Connection db;
    /** When the running statement must stop (nanoTime); checked by SQLite's progress callback. */
    private volatile long deadline = Long.MAX_VALUE;

    EpisodeDatabase(String table, List<String> columns, List<List<String>> rows) throws SQLException {
        SQLiteConfig config = new SQLiteConfig();
        config.enableLoadExtension(false);
        db = config.createConnection("jdbc:sqlite::memory:");
        SQLiteConnection sqlite = (SQLiteConnection) db;
        sqlite.setLimit(SQLiteLimits.SQLITE_LIMIT_ATTACHED, 0);
        sqlite.setLimit(SQLiteLimits.SQLITE_LIMIT_LENGTH, MAX_LENGTH);
        // JDBC's query timeout does not stop a CPU-bound statement (a runaway recursive CTE) in this
        // driver; SQLite's progress callback, every 10,000 VM steps, does.
        ProgressHandler.setHandler(db, 10_000, new ProgressHandler() {
            @Override
            protected int progress() {
                return System.nanoTime() > deadline ? 1 : 0;
            }
        });
        StringBuilder create = new StringBuilder("CREATE TABLE ").append(TableHash.quote(table)).append(" (");
        StringBuilder insert = new StringBuilder("INSERT INTO ").append(TableHash.quote(table)).append(" VALUES (");
        for (int c = 0; c < columns.size(); c++) {
            // All columns TEXT, as AgentBench creates them; NOCASE as MySQL's default collation compares.
            create.append(c == 0 ? "" : ", ").append(TableHash.quote(columns.get(c))).append(" TEXT COLLATE NOCASE");
            insert.append(c == 0 ? "?" : ", ?");
        }
        try (Statement s = db.createStatement()) {
            s.execute(create.append(')').toString());
        }
        try (PreparedStatement p = db.prepareStatement(insert.append(')').toString())) {
            for (List<String> row : rows) {
                for (int c = 0; c < columns.size(); c++) p.setString(c + 1, c < row.size() ? row.get(c) : null);
                p.addBatch();
            }
            p.executeBatch();
        }
    }

    /**
     * Runs one statement: a result set is rendered as a table of at most {@code maxRows} rows, an
     * update as its row count. Errors are thrown as SQLException with SQLite's message.
     */
    String execute(String sql, int timeoutSeconds, int maxRows) throws SQLException {
        deadline = System.nanoTime() + Math.max(1, timeoutSeconds) * 1_000_000_000L;
        try (Statement s = db.createStatement()) {
            if (!s.execute(sql)) return "OK, " + s.getUpdateCount() + " row(s) affected";
            try (ResultSet rs = s.getResultSet()) {
                return render(rs, maxRows);
            }
        } catch (SQLException e) {
            if (System.nanoTime() > deadline) {
                throw new SQLException("the statement ran past its " + timeoutSeconds + " s limit and was stopped", e);
            }
            throw e;
        } finally {
            deadline = Long.MAX_VALUE;
        }
    }

    private static String render(ResultSet rs, int maxRows) throws SQLException {
        ResultSetMetaData md = rs.getMetaData();
        int columns = md.getColumnCount();
        StringBuilder sb = new StringBuilder();
        for (int c = 1; c <= columns; c++) sb.append(c == 1 ? "" : " | ").append(md.getColumnLabel(c));
        sb.append('\n');
        int n = 0;
        while (rs.next()) {
            if (n == maxRows) {
                // Not counted: counting would run a runaway query (a cross join) to its end.
                sb.append("… more rows not shown (first ").append(maxRows).append("); narrow the query\n");
                break;
            }
            for (int c = 1; c <= columns; c++) {
                String v = rs.getString(c);
                sb.append(c == 1 ? "" : " | ").append(v == null ? "NULL" : v);
            }
            sb.append('\n');
            n++;
        }
        if (n == 0) sb.append("(no rows)\n");
        return sb.toString().stripTrailing();
    }

    String hash(String table) throws SQLException {
        return TableHash.of(db, table);
    }

    @Override
    public void close() {
        try {
            db.close();
        } catch (SQLException e) {
            // an in-memory database has nothing to flush
        }
    }
}
