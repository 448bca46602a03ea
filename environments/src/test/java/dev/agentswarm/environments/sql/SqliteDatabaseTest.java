package dev.agentswarm.environments.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SqliteDatabaseTest {

    private static final SqlTable PEOPLE = new SqlTable("the people", List.of(new SqlTable.Column("name", "TEXT"),
            new SqlTable.Column("age", "INTEGER")), List.of(List.of("Ada", 36L), List.of("Ben", 41L)));
    private static final String LOOP = "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT COUNT(*) FROM r";

    private static String refusal(SqliteDatabase db, String sql) {
        return refusal(db, sql, 2000);
    }

    private static String refusal(SqliteDatabase db, String sql, long limitMillis) {
        return assertThrows(RuntimeException.class, () -> db.execute(sql, limitMillis, () -> false)).getMessage();
    }

    @Test
    void runsQueriesAndChangesAndSaysWhatWentWrong() {
        try (SqliteDatabase db = SqliteDatabase.open(List.of(PEOPLE))) {
            assertEquals("| name |\n| --- |\n| Ben |\n(1 row)", db.execute("SELECT name FROM \"the people\" WHERE age > 40;", 2000, () -> false));
            assertEquals("Query OK, 2 rows affected.", db.execute("UPDATE `the people` SET age = age + 1", 2000, () -> false));
            assertEquals("SQL error: no such column: agee", refusal(db, "SELECT agee FROM \"the people\""));
            assertTrue(refusal(db, "SELEC 1").contains("not allowed"));
            assertTrue(refusal(db, "SELECT 1; DROP TABLE \"the people\"").contains("one statement per call"));
            assertEquals("| 1 |\n| --- |\n| 1 |\n(1 row)", db.execute("SELECT 1; -- done\n;", 2000, () -> false));
            assertTrue(db.execute("PRAGMA table_info(\"the people\")", 2000, () -> false).contains("| age |"));
            assertTrue(refusal(db, "DESCRIBE \"the people\"").contains("MySQL"));
            assertTrue(db.execute("SELECT ';' AS \"a;b\" -- ; not a second statement", 2000, () -> false).contains("| ; |"));
        }
    }

    @Test
    void hostileStatementsReachNothingOutsideTheDatabase(@TempDir Path dir) throws SQLException {
        Path file = dir.resolve("stolen.db");
        try (SqliteDatabase db = SqliteDatabase.open(List.of(PEOPLE))) {
            assertTrue(refusal(db, "ATTACH DATABASE '" + file + "' AS x").contains("attaching"));
            assertTrue(refusal(db, "VACUUM INTO '" + file + "'").contains("VACUUM"));
            assertTrue(refusal(db, ".load /tmp/evil.so").contains("dot-command"));
            assertTrue(refusal(db, "backup to " + file).contains("not allowed"));
            assertTrue(refusal(db, "PRAGMA max_page_count = 1000000000").contains("read-only PRAGMAs"));
            assertTrue(refusal(db, "SELECT load_extension('/tmp/evil.so')").contains("not authorized"));
            assertTrue(refusal(db, "SELECT length(randomblob(100000000))").contains("too big"));
            // Below the guard, the connection itself refuses: no attached databases, no extensions.
            try (Statement st = db.connection().createStatement()) {
                SQLException attach = assertThrows(SQLException.class, () -> st.execute("ATTACH DATABASE '" + file + "' AS x"));
                assertTrue(attach.getMessage().contains("too many attached databases"), attach.getMessage());
                assertThrows(SQLException.class, () -> st.execute("SELECT load_extension('/tmp/evil.so')"));
            }
        }
        assertFalse(Files.exists(file), "no file was created on the host");
    }

    @Test
    void aRunawayQueryIsStoppedAtItsLimitAndTheDatabaseStaysUsable() {
        try (SqliteDatabase db = SqliteDatabase.open(List.of(PEOPLE))) {
            long t0 = System.nanoTime();
            String why = refusal(db, LOOP, 500);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(why.contains("ran past its time limit of 500 ms"), why);
            assertTrue(ms >= 450 && ms < 1500, "stopped after " + ms + " ms");
            String fill = refusal(db, "INSERT INTO \"the people\" SELECT 'x', i FROM (WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL"
                    + " SELECT i + 1 FROM r) SELECT i FROM r)", 500);
            assertTrue(fill.contains("time limit") || fill.contains("database or disk is full"), fill);
            assertEquals("| COUNT(*) |\n| --- |\n| 2 |\n(1 row)", db.execute("SELECT COUNT(*) FROM \"the people\"", 2000, () -> false),
                    "the stopped insert was rolled back");
        }
    }

    @Test
    void aCancelledCallStopsItsStatementAtOnce() throws Exception {
        try (SqliteDatabase db = SqliteDatabase.open(List.of(PEOPLE))) {
            AtomicBoolean cancelled = new AtomicBoolean();
            CompletableFuture<String> running = CompletableFuture.supplyAsync(() -> db.execute(LOOP, 60_000, cancelled::get));
            Thread.sleep(200);
            long t0 = System.nanoTime();
            cancelled.set(true);
            var e = assertThrows(java.util.concurrent.ExecutionException.class, () -> running.get(5, TimeUnit.SECONDS));
            assertTrue(e.getCause().getMessage().contains("cancelled"), e.getCause().getMessage());
            assertTrue((System.nanoTime() - t0) / 1_000_000 < 1000, "stopped promptly");
        }
    }

    @Test
    void hugeResultsAreCountedWithoutBeingReadToTheEnd() {
        try (SqliteDatabase db = SqliteDatabase.open(List.of(PEOPLE))) {
            String big = db.execute("WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r LIMIT 1000) SELECT i FROM r",
                    5000, () -> false);
            assertTrue(big.endsWith("(50 of 1000 rows shown; the rest were cut. Narrow the query with WHERE, LIMIT or an"
                    + " aggregate to see them)"), big.substring(big.length() - 100));
            String endless = db.execute("WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT i FROM r",
                    5000, () -> false);
            assertTrue(endless.contains("(50 of more than 10000 rows shown"), endless.substring(endless.length() - 100));
            assertTrue(endless.length() < ResultTable.MAX_CHARS + 200);
        }
    }

    @Test
    void aTableThatCannotBeBuiltIsABadTask() {
        SqlTable dup = new SqlTable("t", List.of(new SqlTable.Column("a", "TEXT"), new SqlTable.Column("a", "TEXT")), List.of());
        var e = assertThrows(IllegalArgumentException.class, () -> SqliteDatabase.open(List.of(dup)));
        assertTrue(e.getMessage().contains("duplicate column name"), e.getMessage());
        var type = assertThrows(IllegalArgumentException.class, () -> new SqlTable.Column("a", "TEXT); DROP TABLE x; --"));
        assertTrue(type.getMessage().contains("unusable type"), type.getMessage());
    }
}
