package dev.agentswarm.environments.sql;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * AgentBench DBBench's table hash, which its INSERT/UPDATE/DELETE tasks are scored by, recomputed
 * over SQLite. AgentBench runs, in MySQL:
 * <pre>
 * select md5(group_concat(rowhash order by rowhash)) from
 *   (SELECT substring(MD5(CONCAT_WS(',', `c1`, `c2`, …)), 1, 5) AS rowhash FROM `t`) as sub;
 * </pre>
 * That is: each row's non-NULL values joined by {@code ,} ({@code CONCAT_WS} skips NULLs, and gives
 * {@code ''} for a row of NULLs), the first 5 hex digits of the MD5 of its UTF-8 bytes, the row
 * hashes sorted and joined by {@code ,}, then the MD5 of that. Two MySQL details are kept:
 * <ul>
 *   <li>{@code GROUP_CONCAT} stops at {@code group_concat_max_len}, 1024 bytes by default
 *       ({@value #GROUP_CONCAT_MAX_LEN}): a table of more than 170 rows hashes the first 1024
 *       bytes of the joined row hashes only (the 171st cut to 4 digits).</li>
 *   <li>An empty table makes {@code GROUP_CONCAT} NULL, so the hash is NULL, which AgentBench's
 *       Python reads back as the text {@code None} ({@link #EMPTY}).</li>
 * </ul>
 * Several tables give their hashes sorted and joined by {@code _}. Values are read as SQLite's text
 * of them; AgentBench's tables are all TEXT, so a value reads back as it was written.
 */
public final class TableHash {

    /** MySQL's default {@code group_concat_max_len}. */
    public static final int GROUP_CONCAT_MAX_LEN = 1024;

    /** The hash of a table without rows, as AgentBench reads MySQL's NULL. */
    public static final String EMPTY = "None";

    private TableHash() {}

    /** {@code substring(MD5(CONCAT_WS(',', values…)), 1, 5)}; null values are skipped. */
    public static String rowHash(List<String> values) {
        StringBuilder sb = new StringBuilder();
        boolean first = true;
        for (String v : values) {
            if (v == null) continue;
            if (!first) sb.append(',');
            sb.append(v);
            first = false;
        }
        return md5(sb.toString()).substring(0, 5);
    }

    /** {@code md5(group_concat(rowhash order by rowhash))} over the row hashes, truncation included. */
    public static String ofRowHashes(List<String> rowHashes) {
        if (rowHashes.isEmpty()) return EMPTY;
        String[] sorted = rowHashes.toArray(String[]::new);
        Arrays.sort(sorted);
        byte[] joined = String.join(",", sorted).getBytes(StandardCharsets.UTF_8);
        if (joined.length > GROUP_CONCAT_MAX_LEN) joined = Arrays.copyOf(joined, GROUP_CONCAT_MAX_LEN);
        return md5(joined);
    }

    /** The hash of the rows, each the list of its values (nulls allowed). */
    public static String ofRows(List<List<String>> rows) {
        List<String> hashes = new ArrayList<>(rows.size());
        for (List<String> row : rows) hashes.add(rowHash(row));
        return ofRowHashes(hashes);
    }

    /** The hash of a table of an open database, over the given columns in that order. */
    public static String of(Connection connection, String table, List<String> columns) throws SQLException {
        StringBuilder sql = new StringBuilder("SELECT ");
        for (int i = 0; i < columns.size(); i++) sql.append(i == 0 ? "" : ", ").append(quote(columns.get(i)));
        sql.append(" FROM ").append(quote(table));
        List<List<String>> rows = new ArrayList<>();
        try (Statement st = connection.createStatement(); ResultSet rs = st.executeQuery(sql.toString())) {
            while (rs.next()) {
                List<String> row = new ArrayList<>(columns.size());
                for (int i = 1; i <= columns.size(); i++) row.add(rs.getString(i));
                rows.add(row);
            }
        }
        return ofRows(rows);
    }

    /** Several tables' hashes as AgentBench combines them: sorted, joined by {@code _}. */
    public static String combine(List<String> tableHashes) {
        String[] sorted = tableHashes.toArray(String[]::new);
        Arrays.sort(sorted);
        return String.join("_", sorted);
    }

    /** The hash of a table over all its columns, in their declared order. */
    public static String of(Connection connection, String table) throws SQLException {
        List<String> columns = new ArrayList<>();
        try (Statement st = connection.createStatement();
             ResultSet rs = st.executeQuery("SELECT name FROM pragma_table_info(" + literal(table) + ") ORDER BY cid")) {
            while (rs.next()) columns.add(rs.getString(1));
        }
        if (columns.isEmpty()) throw new SQLException("no such table: " + table);
        return of(connection, table, columns);
    }

    /** The hash inside an {@code answer_md5} such as {@code [('e63818…',)]}, or the text itself when it is bare. */
    public static String goldOf(String answerMd5) {
        List<String> cleaned = AnswerMatcher.clean(answerMd5);
        return cleaned != null && cleaned.size() == 1 ? cleaned.get(0) : answerMd5;
    }

    /** An SQL identifier in double quotes, inner quotes doubled: safe for any table or column name. */
    public static String quote(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }

    /** An SQL string literal, inner quotes doubled. */
    public static String literal(String text) {
        return "'" + text.replace("'", "''") + "'";
    }

    static String md5(String s) {
        return md5(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String md5(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no MD5", e);
        }
    }
}
