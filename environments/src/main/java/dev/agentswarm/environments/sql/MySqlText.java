package dev.agentswarm.environments.sql;

/**
 * DBBench's gold statements are MySQL, whose string literals take backslash escapes ('\n' is a
 * newline); SQLite reads a backslash as itself. The oracle rewrites the escapes inside quoted
 * literals before running a gold statement on SQLite, so the row it stores is the row MySQL stored.
 */
final class MySqlText {

    private MySqlText() {}

    static String unescapeLiterals(String sql) {
        StringBuilder out = new StringBuilder(sql.length());
        char quote = 0;
        for (int i = 0; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (quote == 0) {
                if (c == '\'' || c == '"') quote = c;
                out.append(c);
                continue;
            }
            if (c == '\\' && i + 1 < sql.length()) {
                char next = sql.charAt(++i);
                switch (next) {
                    case 'n' -> out.append('\n');
                    case 't' -> out.append('\t');
                    case 'r' -> out.append('\r');
                    case '0' -> out.append('\0');
                    case '\'' -> out.append(quote == '\'' ? "''" : "'");
                    case '"' -> out.append(quote == '"' ? "\"\"" : "\"");
                    default -> out.append(next); // \\ → \, and MySQL drops the backslash of unknown escapes
                }
                continue;
            }
            if (c == quote) quote = 0;
            out.append(c);
        }
        return out.toString();
    }
}
