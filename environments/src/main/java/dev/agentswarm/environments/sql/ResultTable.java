package dev.agentswarm.environments.sql;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The text an {@code execute_sql} result reads as, and its reading back (the oracle's, a test's).
 * A pipe table with a header and a closing count:
 * <pre>
 * | name | salary |
 * | --- | --- |
 * | Ada Park | 72000 |
 * (1 row)
 * </pre>
 * Values: NULL as {@code NULL}, integers as digits, reals as Python prints them ({@code 61234.5},
 * {@code 3.0}), text as it is, blobs as {@code X'…'}. A {@code |} inside a value is written
 * {@code \|} and a line break as {@code \n}, so each row stays one line. Only {@value #MAX_ROWS}
 * rows and {@value #MAX_CHARS} characters are shown, values cut at {@value #MAX_CELL} characters
 * (ending in …); a cut says how many rows there were (counted up to {@value #COUNT_LIMIT}).
 */
public final class ResultTable {

    public static final int MAX_ROWS = 50;
    public static final int MAX_CELL = 200;
    public static final int MAX_CHARS = 4000;
    public static final int COUNT_LIMIT = 10_000;

    private static final String SEPARATOR = " | ";

    private ResultTable() {}

    /** The rows read back from a rendered table. */
    public record Parsed(List<String> columns, List<List<String>> rows) {
        /** Every value, row by row: what a question's answer list holds. */
        public List<String> values() {
            List<String> out = new ArrayList<>();
            for (List<String> r : rows) out.addAll(r);
            return out;
        }
    }

    /** A value as the table shows it (before escaping and the cell cap). */
    public static String cell(Object v) {
        if (v == null) return "NULL";
        if (v instanceof Double d) return dev.agentswarm.core.json.PythonText.floatRepr(d);
        if (v instanceof Float f) return dev.agentswarm.core.json.PythonText.floatRepr(f);
        if (v instanceof byte[] b) return "X'" + HexFormat.of().formatHex(b) + "'";
        return v.toString();
    }

    /** Builds the text of one result, row by row, within the caps. */
    static final class Builder {
        private final StringBuilder sb = new StringBuilder();
        private int shown;
        private long total;
        private boolean full;

        Builder(List<String> columns) {
            line(columns);
            sb.append('|');
            for (int i = 0; i < columns.size(); i++) sb.append(" --- |");
            sb.append('\n');
        }

        /** Adds a row if there is room; every row counts toward the total either way. */
        void row(List<Object> values) {
            total++;
            if (full) return;
            List<String> cells = new ArrayList<>(values.size());
            for (Object v : values) cells.add(cap(cell(v)));
            int before = sb.length();
            line(cells);
            if (shown == MAX_ROWS || sb.length() > MAX_CHARS) {
                sb.setLength(before);
                full = true;
                return;
            }
            shown++;
        }

        void count() {
            total++;
        }

        boolean full() {
            return full;
        }

        long total() {
            return total;
        }

        /** The text; {@code more} when counting stopped at {@link #COUNT_LIMIT} with rows left. */
        String finish(boolean more) {
            if (shown == total) {
                return sb.append('(').append(total).append(total == 1 ? " row)" : " rows)").toString();
            }
            sb.append('(').append(shown).append(" of ").append(more ? "more than " : "").append(total)
                    .append(" rows shown; the rest were cut. Narrow the query with WHERE, LIMIT or an aggregate to see them)");
            return sb.toString();
        }

        private void line(List<String> cells) {
            sb.append("| ");
            for (int i = 0; i < cells.size(); i++) sb.append(i == 0 ? "" : SEPARATOR).append(escape(cells.get(i)));
            sb.append(" |\n");
        }
    }

    private static String cap(String s) {
        return s.length() <= MAX_CELL ? s : s.substring(0, MAX_CELL) + "…";
    }

    static String escape(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '|' -> sb.append("\\|");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                default -> sb.append(c);
            }
        }
        return sb.toString();
    }

    /** The first table in {@code text} (a tool message, maybe wrapped in tags), or null when there is none. */
    public static Parsed parse(String text) {
        if (text == null) return null;
        List<String> lines = text.lines().toList();
        for (int i = 0; i + 1 < lines.size(); i++) {
            if (!isRow(lines.get(i)) || !lines.get(i + 1).matches("\\|( --- \\|)+")) continue;
            List<String> columns = cells(lines.get(i));
            List<List<String>> rows = new ArrayList<>();
            for (int j = i + 2; j < lines.size() && isRow(lines.get(j)); j++) rows.add(cells(lines.get(j)));
            return new Parsed(columns, rows);
        }
        return null;
    }

    private static boolean isRow(String line) {
        return line.length() >= 4 && line.startsWith("| ") && line.endsWith(" |");
    }

    private static List<String> cells(String line) {
        String inner = line.substring(2, line.length() - 2);
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        int i = 0;
        while (i < inner.length()) {
            char c = inner.charAt(i);
            if (c == '\\' && i + 1 < inner.length() && inner.charAt(i + 1) == '|') {
                cur.append('|');
                i += 2;
            } else if (inner.startsWith(SEPARATOR, i)) {
                out.add(cur.toString());
                cur.setLength(0);
                i += SEPARATOR.length();
            } else {
                cur.append(c);
                i++;
            }
        }
        out.add(cur.toString());
        return out;
    }
}
