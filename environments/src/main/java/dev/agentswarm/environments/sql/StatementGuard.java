package dev.agentswarm.environments.sql;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What an agent's {@code execute_sql} may run, checked before SQLite sees it: one statement (as
 * AgentBench asks), of a kind that stays inside the episode's in-memory database. Refused with a
 * message the model can act on: several statements, ATTACH/DETACH (a file on the host), VACUUM
 * (VACUUM INTO writes a file), PRAGMAs other than the read-only schema ones, sqlite3 shell
 * dot-commands ({@code .load}, {@code .tables}), sqlite-jdbc's {@code backup}/{@code restore}
 * commands, anything else unknown. The database is hardened as well (no extension loading, no
 * attached databases): this guard gives the clear message, the limits hold regardless.
 */
final class StatementGuard {

    private static final Set<String> ALLOWED = Set.of("SELECT", "WITH", "VALUES", "INSERT", "REPLACE", "UPDATE", "DELETE",
            "CREATE", "DROP", "ALTER", "EXPLAIN", "PRAGMA", "BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE",
            "ANALYZE", "REINDEX");
    private static final Pattern READ_ONLY_PRAGMA = Pattern.compile(
            "(?is)PRAGMA\\s+(main\\.)?(table_info|table_xinfo|table_list|index_list|index_info|index_xinfo|foreign_key_list)"
                    + "\\s*(\\(.*\\))?\\s*");
    private static final Pattern TRIGGER = Pattern.compile("(?is)CREATE\\s+(TEMP\\s+|TEMPORARY\\s+)?TRIGGER\\b.*");

    private StatementGuard() {}

    /** The statement to run (without a trailing semicolon), or an {@link IllegalArgumentException} saying why not. */
    static String check(String sql) {
        if (sql == null || sql.isBlank()) throw new IllegalArgumentException("the query is empty; write one SQL statement");
        int start = skipSpaceAndComments(sql, 0);
        if (start >= sql.length()) throw new IllegalArgumentException("the query holds only comments; write one SQL statement");
        char first = sql.charAt(start);
        if (first == '.') {
            throw new IllegalArgumentException("\"" + firstWord(sql, start + 1) + "\" is a sqlite3 shell dot-command, not SQL, and"
                    + " is not available; list the tables with SELECT name FROM sqlite_master WHERE type = 'table'");
        }
        String keyword = firstWord(sql, start).toUpperCase(Locale.ROOT);
        if (!ALLOWED.contains(keyword)) {
            String why = switch (keyword) {
                case "ATTACH", "DETACH" -> "attaching other databases is not allowed: work with the tables already here";
                case "VACUUM" -> "VACUUM is not allowed here";
                case "DESCRIBE", "DESC", "SHOW" -> keyword + " is MySQL, not SQLite; use PRAGMA table_info(\"table name\")"
                        + " or SELECT sql FROM sqlite_master";
                case "" -> "the query does not start with an SQL keyword";
                default -> "statements starting with " + keyword + " are not allowed here";
            };
            throw new IllegalArgumentException(why + " (allowed: SELECT, WITH, INSERT, UPDATE, DELETE, CREATE, DROP, ALTER and"
                    + " the read-only PRAGMAs such as table_info)");
        }
        String statement = singleStatement(sql, start, keyword);
        if (keyword.equals("PRAGMA") && !READ_ONLY_PRAGMA.matcher(statement).matches()) {
            throw new IllegalArgumentException("only the read-only PRAGMAs table_info, table_xinfo, table_list, index_list,"
                    + " index_info and foreign_key_list are allowed");
        }
        return statement;
    }

    /**
     * Whether {@code sql} only reads, so running it again changes nothing: SELECT, VALUES, EXPLAIN and the
     * allowed (read-only) PRAGMAs. WITH may end in a write, so it counts as one. A statement this guard
     * refuses runs nothing at all.
     */
    static boolean readOnly(String sql) {
        String statement;
        try {
            statement = check(sql);
        } catch (IllegalArgumentException e) {
            return true;
        }
        return switch (firstWord(statement, 0).toUpperCase(Locale.ROOT)) {
            case "SELECT", "VALUES", "EXPLAIN", "PRAGMA" -> true;
            default -> false;
        };
    }

    /** The text of the first statement; more than one (outside quotes and comments) is refused. */
    private static String singleStatement(String sql, int start, String keyword) {
        if (keyword.equals("CREATE") && TRIGGER.matcher(sql.substring(start)).matches()) {
            return sql.substring(start).strip(); // its body holds semicolons of its own
        }
        int end = endOfStatement(sql, start);
        if (end < sql.length()) {
            int rest = end + 1;
            while (true) {
                rest = skipSpaceAndComments(sql, rest);
                if (rest < sql.length() && sql.charAt(rest) == ';') {
                    rest++;
                    continue;
                }
                break;
            }
            if (rest < sql.length()) {
                throw new IllegalArgumentException("one statement per call: the query holds more than one; run them in separate"
                        + " execute_sql calls");
            }
        }
        return sql.substring(start, end).strip();
    }

    /** The index of the first semicolon outside quotes, identifiers and comments, or the length. */
    private static int endOfStatement(String s, int i) {
        while (i < s.length()) {
            char c = s.charAt(i);
            switch (c) {
                case '\'', '"', '`' -> i = closing(s, i + 1, c);
                case '[' -> i = closing(s, i + 1, ']');
                case '-' -> i = s.startsWith("--", i) ? lineEnd(s, i) : i + 1;
                case '/' -> i = s.startsWith("/*", i) ? commentEnd(s, i) : i + 1;
                case ';' -> {
                    return i;
                }
                default -> i++;
            }
        }
        return s.length();
    }

    /** Past the closing {@code q} (a doubled one is an escaped quote); the end when unterminated. */
    private static int closing(String s, int i, char q) {
        while (i < s.length()) {
            if (s.charAt(i) == q) {
                if (q != ']' && i + 1 < s.length() && s.charAt(i + 1) == q) {
                    i += 2;
                    continue;
                }
                return i + 1;
            }
            i++;
        }
        return s.length();
    }

    private static int lineEnd(String s, int i) {
        int nl = s.indexOf('\n', i);
        return nl < 0 ? s.length() : nl + 1;
    }

    private static int commentEnd(String s, int i) {
        int end = s.indexOf("*/", i + 2);
        return end < 0 ? s.length() : end + 2;
    }

    private static int skipSpaceAndComments(String s, int i) {
        while (i < s.length()) {
            if (Character.isWhitespace(s.charAt(i))) i++;
            else if (s.startsWith("--", i)) i = lineEnd(s, i);
            else if (s.startsWith("/*", i)) i = commentEnd(s, i);
            else break;
        }
        return i;
    }

    private static String firstWord(String s, int i) {
        int j = i;
        while (j < s.length() && (Character.isLetter(s.charAt(j)) || s.charAt(j) == '_')) j++;
        return s.substring(i, j);
    }
}
