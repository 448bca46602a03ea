package dev.agentswarm.environments.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.sqlite.ProgressHandler;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteConnection;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;
import org.sqlite.SQLiteLimits;

/**
 * One episode's database: a fresh in-memory SQLite ({@code jdbc:sqlite::memory:}) loaded with its
 * task's tables, hardened against what an agent's SQL could reach: extension loading off (so
 * {@code load_extension()} fails), no attached databases ({@code SQLITE_LIMIT_ATTACHED} = 0, so
 * ATTACH cannot open a file on the host), strings and blobs capped at {@value #MAX_LENGTH} bytes,
 * statements at {@value #MAX_SQL_LENGTH} characters, the database at {@value #MAX_PAGES} pages
 * (64 MiB), and each statement checked by {@link StatementGuard} first.
 *
 * <p>Time limits: sqlite-jdbc's {@code Statement.setQueryTimeout} only sets the busy timeout (it
 * does not stop a long query), so a progress handler checks, every {@value #PROGRESS_OPS} virtual
 * machine steps, the statement's deadline and its caller's cancellation, and interrupts it
 * (SQLite then rolls the statement back). One statement runs at a time; {@link #close} waits for
 * a running one to stop.
 */
public final class SqliteDatabase implements AutoCloseable {

    static final int MAX_LENGTH = 1_000_000;
    static final int MAX_SQL_LENGTH = 100_000;
    static final int MAX_PAGES = 16_384;
    static final int PROGRESS_OPS = 1_000;
    private static final BooleanSupplier NEVER = () -> false;
    private static final Pattern SQLITE_MESSAGE = Pattern.compile("^\\[SQLITE_\\w+\\]\\s+.*?\\((.*)\\)$", Pattern.DOTALL);

    private final Connection connection;
    private final Object lock = new Object();
    /** Read by the progress handler on the statement's thread; set for the statement running. */
    private volatile boolean running;
    private volatile long deadlineNanos;
    private volatile BooleanSupplier cancelled = NEVER;
    private volatile boolean closing;

    private SqliteDatabase(Connection connection) {
        this.connection = connection;
    }

    /** A fresh database holding {@code tables}; throws {@link IllegalArgumentException} when a table cannot be built. */
    public static SqliteDatabase open(List<SqlTable> tables) {
        SqliteDatabase db;
        try {
            SQLiteConfig config = new SQLiteConfig();
            config.enableLoadExtension(false);
            config.setMaxPageCount(MAX_PAGES);
            Connection c = config.createConnection("jdbc:sqlite::memory:");
            SQLiteConnection sqlite = (SQLiteConnection) c;
            sqlite.setLimit(SQLiteLimits.SQLITE_LIMIT_ATTACHED, 0);
            sqlite.setLimit(SQLiteLimits.SQLITE_LIMIT_LENGTH, MAX_LENGTH);
            sqlite.setLimit(SQLiteLimits.SQLITE_LIMIT_SQL_LENGTH, MAX_SQL_LENGTH);
            db = new SqliteDatabase(c);
            ProgressHandler.setHandler(c, PROGRESS_OPS, new ProgressHandler() {
                @Override
                protected int progress() {
                    return db.closing || db.running && (db.cancelled.getAsBoolean() || System.nanoTime() - db.deadlineNanos > 0) ? 1 : 0;
                }
            });
        } catch (SQLException e) {
            throw new IllegalStateException("cannot open an in-memory SQLite database: " + e.getMessage(), e);
        }
        try {
            db.load(tables);
        } catch (SQLException | RuntimeException e) {
            db.close();
            throw new IllegalArgumentException("cannot build the tables: " + message(e), e);
        }
        return db;
    }

    private void load(List<SqlTable> tables) throws SQLException {
        connection.setAutoCommit(false);
        try {
            for (SqlTable t : tables) {
                try (Statement st = connection.createStatement()) {
                    st.execute(t.createStatement());
                }
                try (PreparedStatement insert = connection.prepareStatement(t.insertStatement())) {
                    for (List<Object> row : t.rows()) {
                        for (int i = 0; i < row.size(); i++) insert.setObject(i + 1, row.get(i));
                        insert.addBatch();
                    }
                    insert.executeBatch();
                }
            }
            connection.commit();
        } finally {
            connection.setAutoCommit(true);
        }
    }

    /**
     * Runs an agent's statement: a query's rows as a {@link ResultTable}, a change as
     * {@code Query OK, n rows affected}. Throws {@link IllegalArgumentException} with a message the
     * model can read: the guard's refusal, SQLite's error, or that the time limit stopped it.
     */
    public String execute(String sql, long timeoutMillis, BooleanSupplier cancel) {
        String statement = StatementGuard.check(sql);
        return run(statement, timeoutMillis, cancel, ps -> {
            if (!ps.execute()) {
                int n = Math.max(0, ps.getUpdateCount());
                return "Query OK, " + n + (n == 1 ? " row" : " rows") + " affected.";
            }
            try (ResultSet rs = ps.getResultSet()) {
                ResultSetMetaData md = rs.getMetaData();
                List<String> columns = new ArrayList<>();
                for (int i = 1; i <= md.getColumnCount(); i++) columns.add(md.getColumnLabel(i));
                ResultTable.Builder table = new ResultTable.Builder(columns);
                boolean more = false;
                while (rs.next()) {
                    if (table.full()) {
                        more = countRest(rs, table);
                        break;
                    }
                    List<Object> row = new ArrayList<>(columns.size());
                    for (int i = 1; i <= columns.size(); i++) row.add(rs.getObject(i));
                    table.row(row);
                }
                return table.finish(more);
            }
        });
    }

    /**
     * Counts the rows left (the result set stands on one not yet counted) without reading their
     * values, up to {@link ResultTable#COUNT_LIMIT} in all: a cross join is not read to its end.
     * Whether rows were left uncounted.
     */
    private static boolean countRest(ResultSet rs, ResultTable.Builder table) throws SQLException {
        do {
            table.count();
            if (table.total() >= ResultTable.COUNT_LIMIT) return rs.next();
        } while (rs.next());
        return false;
    }

    /** A trusted statement's rows, values as SQLite returns them (gold answers at generation time). */
    public List<List<Object>> query(String sql) {
        return run(sql, 60_000, NEVER, ps -> {
            List<List<Object>> rows = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                int n = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    List<Object> row = new ArrayList<>(n);
                    for (int i = 1; i <= n; i++) row.add(rs.getObject(i));
                    rows.add(row);
                }
            }
            return rows;
        });
    }

    /** Runs a trusted change (a gold INSERT/UPDATE/DELETE); the number of rows it changed. */
    public int update(String sql) {
        return run(sql, 60_000, NEVER, PreparedStatement::executeUpdate);
    }

    /** AgentBench's hash of these tables as they are now, over their original columns; {@link TableHash#combine} of several. */
    public String hash(List<SqlTable> tables) {
        synchronized (lock) {
            try {
                List<String> hashes = new ArrayList<>();
                for (SqlTable t : tables) hashes.add(TableHash.of(connection, t.name(), t.columnNames()));
                return TableHash.combine(hashes);
            } catch (SQLException e) {
                throw new IllegalArgumentException("cannot hash the table: " + message(e), e);
            }
        }
    }

    private interface Body<T> {
        T apply(PreparedStatement ps) throws SQLException;
    }

    private <T> T run(String sql, long timeoutMillis, BooleanSupplier cancel, Body<T> body) {
        synchronized (lock) {
            if (closing) throw new IllegalStateException("the episode's database is closed");
            if (cancel.getAsBoolean()) throw new IllegalStateException("the call was cancelled before it ran");
            cancelled = cancel;
            deadlineNanos = System.nanoTime() + Math.max(1, timeoutMillis) * 1_000_000L;
            running = true;
            try (PreparedStatement ps = connection.prepareStatement(sql)) {
                return body.apply(ps);
            } catch (SQLException e) {
                if (interrupted(e)) {
                    if (closing || cancel.getAsBoolean()) throw new IllegalStateException("the statement was cancelled");
                    throw new IllegalArgumentException("the statement ran past its time limit of " + timeoutMillis
                            + " ms and was stopped (its changes were rolled back); simplify it or narrow it with WHERE or LIMIT");
                }
                throw new IllegalArgumentException("SQL error: " + message(e));
            } finally {
                running = false;
                cancelled = NEVER;
            }
        }
    }

    private static boolean interrupted(SQLException e) {
        return e instanceof SQLiteException se && se.getResultCode() == SQLiteErrorCode.SQLITE_INTERRUPT
                || String.valueOf(e.getMessage()).contains("SQLITE_INTERRUPT");
    }

    /** SQLite's own words: "no such column: x" rather than "[SQLITE_ERROR] SQL error or missing database (no such column: x)". */
    static String message(Exception e) {
        String m = String.valueOf(e.getMessage());
        Matcher matcher = SQLITE_MESSAGE.matcher(m);
        return matcher.matches() ? matcher.group(1) : m;
    }

    /** The connection, for tests of the hardening below the guard. */
    Connection connection() {
        return connection;
    }

    /** Stops a running statement, then closes; never throws. */
    @Override
    public void close() {
        closing = true;
        synchronized (lock) {
            try {
                connection.close();
            } catch (SQLException e) {
                // an in-memory database has nothing to flush
            }
        }
    }
}
