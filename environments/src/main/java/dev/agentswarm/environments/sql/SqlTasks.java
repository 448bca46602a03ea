package dev.agentswarm.environments.sql;

import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.environments.GeneratedTasks;
import dev.agentswarm.environments.Split;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The sql suite's tasks: a small table drawn from a seed (employees, products or orders, 8 to 16
 * rows, names unique, the columns questions rank by without ties) and a question of one of
 * DBBench's types: counting, aggregation-SUM/MIN/MAX/AVG, ranking (top k), comparison, filtering,
 * other (a lookup), and the modifications INSERT, UPDATE and DELETE. Questions are drawn from the
 * table's own values, so none is empty or ambiguous. The gold answer is what SQLite returns for
 * the gold statement, rendered as {@code execute_sql} shows it (a JSON list of strings); for a
 * modification, the table hash after the gold statement. A task's split is decided by a hash of
 * its table seed and question ({@link Split#byHash}).
 */
final class SqlTasks {

    /** Metadata keys: the DBBench type, the gold statement, the kind of table. */
    static final String TYPE = "type";
    static final String SQL = "sql";
    static final String KIND = "kind";

    static final List<String> TYPES = List.of("counting", "aggregation-SUM", "aggregation-MIN", "aggregation-MAX",
            "aggregation-AVG", "ranking", "comparison", "filtering", "other", "INSERT", "UPDATE", "DELETE");

    private static final int MIN_ROWS = 8;
    private static final int MAX_ROWS = 16;

    private static final String[] FIRST = {"Ada", "Ben", "Chloe", "Dmitri", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jonas",
        "Kira", "Liam", "Maya", "Nikhil", "Olga", "Pablo", "Quinn", "Rosa", "Samir", "Tara", "Uma", "Victor", "Wen", "Yusuf"};
    private static final String[] LAST = {"Park", "Ortiz", "Novak", "Schmidt", "Okafor", "Tanaka", "Rossi", "Kowalski",
        "Nguyen", "Haddad", "O'Neil", "Larsen", "Moreau", "Silva", "Chen", "Fischer", "Dubois", "Ivanova", "Mensah", "Ward"};
    private static final String[] ADJECTIVES = {"Compact", "Deluxe", "Eco", "Smart", "Classic", "Portable", "Rustic", "Turbo",
        "Mini", "Ultra", "Quiet", "Solar", "Nordic", "Vintage", "Pro", "Aero"};
    private static final String[] NOUNS = {"Kettle", "Lamp", "Blender", "Backpack", "Drill", "Chair", "Speaker", "Tent",
        "Scooter", "Notebook", "Grill", "Heater", "Kite", "Helmet", "Mixer", "Router"};

    private static final Kind EMPLOYEES = new Kind("employees", "employee", "employees", "name",
            List.of(new Category("department", "work in the %s department",
                            List.of("Engineering", "Sales", "Marketing", "Finance", "Support", "Legal")),
                    new Category("city", "are based in %s", List.of("Boston", "Denver", "Austin", "Seattle", "Chicago"))),
            List.of(new Measure("salary", false, true, true, 1000, 38_000, 160_000, 500),
                    new Measure("hire_year", false, false, false, 1, 2008, 2024, 0)),
            null);
    private static final Kind PRODUCTS = new Kind("products", "product", "products", "name",
            List.of(new Category("category", "are in the %s category", List.of("Kitchen", "Garden", "Toys", "Office", "Sports")),
                    new Category("supplier", "are supplied by %s", List.of("Northwind", "Contoso", "Fabrikam", "Tailspin"))),
            List.of(new Measure("price", true, true, true, 1, 199, 49_999, 0),
                    new Measure("stock", false, false, true, 10, 0, 400, 10)),
            null);
    private static final Kind ORDERS = new Kind("orders", "order", "orders", "id",
            List.of(new Category("customer", "were placed by %s",
                            List.of("Acme Corp", "Globex", "Initech", "Hooli", "Vandelay Imports", "Wonka Foods")),
                    new Category("status", "have the status %s", List.of("pending", "shipped", "delivered", "cancelled"))),
            List.of(new Measure("amount", true, true, true, 10, 1_000, 250_000, 0),
                    new Measure("quantity", false, false, true, 1, 1, 20, 1)),
            "order_date");
    private static final List<Kind> KINDS = List.of(EMPLOYEES, PRODUCTS, ORDERS);

    private SqlTasks() {}

    /** A text column whose values group the rows; {@code clause} reads "(employees that) work in the %s department". */
    private record Category(String column, String clause, List<String> values) {
        String that(String value) {
            return String.format(Locale.ROOT, clause, value);
        }
    }

    /**
     * A numeric column. Reals are stored in cents ({@code low}..{@code high} are cents then).
     * {@code distinct}: no two rows share a value, so rankings have no ties. {@code nice}: the
     * granularity thresholds are rounded to. {@code step}: the unit an UPDATE adds (0: none).
     */
    private record Measure(String column, boolean real, boolean distinct, boolean summable, int nice, int low, int high, int step) {
        String noun() {
            return column.replace('_', ' ');
        }

        Object value(long raw) {
            return real ? raw / 100.0 : (Object) raw;
        }
    }

    /** A kind of table: its entity words, the column that names a row, its categories and measures, an optional date. */
    private record Kind(String table, String singular, String plural, String label, List<Category> categories,
                        List<Measure> measures, String dateColumn) {

        List<SqlTable.Column> columns() {
            List<SqlTable.Column> cols = new ArrayList<>();
            cols.add(new SqlTable.Column("id", "INTEGER"));
            if (!label.equals("id")) cols.add(new SqlTable.Column(label, "TEXT"));
            for (Category c : categories) cols.add(new SqlTable.Column(c.column(), "TEXT"));
            for (Measure m : measures) cols.add(new SqlTable.Column(m.column(), m.real() ? "REAL" : "INTEGER"));
            if (dateColumn != null) cols.add(new SqlTable.Column(dateColumn, "TEXT"));
            return cols;
        }

        int index(String column) {
            List<SqlTable.Column> cols = columns();
            for (int i = 0; i < cols.size(); i++) if (cols.get(i).name().equals(column)) return i;
            throw new IllegalArgumentException(column);
        }

        /** How a question names one row: employee "Ada Park", order 12. */
        String ref(Object labelValue) {
            return label.equals("id") ? singular + " " + labelValue : singular + " \"" + labelValue + "\"";
        }
    }

    private record Draft(String type, Kind kind, SqlTable table, long tableSeed, String question, String sql) {}

    static List<Task> generate(String suite, Split split, int limit, long seed) {
        return GeneratedTasks.generate(suite, split, limit, seed, SqlTasks::draw,
                d -> d.kind().table() + "/" + d.tableSeed() + "/" + d.question(), (id, meta, d) -> {
                    meta.put(TYPE, d.type());
                    meta.put(KIND, d.kind().table());
                    meta.put(SQL, d.sql());
                    meta.put(SqlTable.METADATA_KEY, SqlTable.toJson(List.of(d.table())));
                    String prompt = "Additional table information about the question: " + d.table().describe() + "\n"
                            + "Question: " + d.question() + "\n";
                    return new Task(id, prompt, gold(d), meta);
                });
    }

    /** What SQLite makes of the gold statement: the values as execute_sql shows them, or the table hash after it. */
    private static String gold(Draft d) {
        try (SqliteDatabase db = SqliteDatabase.open(List.of(d.table()))) {
            if (AnswerMatcher.isModification(d.type())) {
                db.update(d.sql());
                return db.hash(List.of(d.table()));
            }
            List<String> values = new ArrayList<>();
            for (List<Object> row : db.query(d.sql())) for (Object v : row) values.add(ResultTable.cell(v));
            return Json.write(values);
        }
    }

    private static Draft draw(SplittableRandom rnd) {
        Kind kind = KINDS.get(rnd.nextInt(KINDS.size()));
        String type = TYPES.get(rnd.nextInt(TYPES.size()));
        long tableSeed = rnd.nextLong();
        SqlTable table = table(kind, new SplittableRandom(tableSeed));
        Question q = new Question(kind, table, rnd);
        String[] qs = switch (type) {
            case "counting" -> q.counting();
            case "aggregation-SUM", "aggregation-MIN", "aggregation-MAX", "aggregation-AVG" -> q.aggregation(type.substring(12));
            case "ranking" -> q.ranking();
            case "comparison" -> q.comparison();
            case "filtering" -> q.filtering();
            case "other" -> q.lookup();
            case "INSERT" -> q.insert();
            case "UPDATE" -> q.update();
            case "DELETE" -> q.delete();
            default -> throw new IllegalStateException(type);
        };
        return new Draft(type, kind, table, tableSeed, qs[0], qs[1]);
    }

    private static SqlTable table(Kind kind, SplittableRandom rnd) {
        int n = rnd.nextInt(MIN_ROWS, MAX_ROWS + 1);
        List<Object> labels = kind.label().equals("id") ? null : new ArrayList<>(uniqueNames(kind, rnd, n, Set.of()));
        List<List<Object>> measures = new ArrayList<>();
        for (Measure m : kind.measures()) measures.add(measureValues(m, rnd, n));
        List<List<Object>> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            List<Object> row = new ArrayList<>();
            row.add((long) (i + 1));
            if (labels != null) row.add(labels.get(i));
            for (Category c : kind.categories()) row.add(c.values().get(rnd.nextInt(c.values().size())));
            for (List<Object> values : measures) row.add(values.get(i));
            if (kind.dateColumn() != null) row.add(date(rnd));
            rows.add(row);
        }
        return new SqlTable(kind.table(), kind.columns(), rows);
    }

    private static Set<String> uniqueNames(Kind kind, SplittableRandom rnd, int n, Set<String> taken) {
        Set<String> names = new LinkedHashSet<>();
        while (names.size() < n) {
            String name = kind == PRODUCTS ? ADJECTIVES[rnd.nextInt(ADJECTIVES.length)] + " " + NOUNS[rnd.nextInt(NOUNS.length)]
                    : FIRST[rnd.nextInt(FIRST.length)] + " " + LAST[rnd.nextInt(LAST.length)];
            if (!taken.contains(name)) names.add(name);
        }
        return names;
    }

    private static List<Object> measureValues(Measure m, SplittableRandom rnd, int n) {
        List<Object> out = new ArrayList<>(n);
        Set<Long> seen = new HashSet<>();
        int unit = !m.real() && m.step() > 0 && m.distinct() ? m.step() : 1;
        while (out.size() < n) {
            long raw = (long) rnd.nextInt(m.low() / unit, m.high() / unit + 1) * unit;
            if (m.distinct() && !seen.add(raw)) continue;
            out.add(m.value(raw));
        }
        return out;
    }

    private static String date(SplittableRandom rnd) {
        return String.format(Locale.ROOT, "2024-%02d-%02d", rnd.nextInt(1, 13), rnd.nextInt(1, 29));
    }

    /** Questions about one table, each as {question, gold SQL}. */
    private static final class Question {
        private final Kind kind;
        private final SqlTable table;
        private final SplittableRandom rnd;
        private final String t;

        Question(Kind kind, SqlTable table, SplittableRandom rnd) {
            this.kind = kind;
            this.table = table;
            this.rnd = rnd;
            this.t = kind.table();
        }

        String[] counting() {
            if (rnd.nextBoolean()) {
                Category c = category();
                String v = (String) valueOf(randomRow(), c.column());
                return q("How many " + kind.plural() + " " + c.that(v) + "?",
                        "SELECT COUNT(*) FROM " + t + " WHERE " + c.column() + " = " + lit(v));
            }
            Measure m = measure(false, false);
            Object x = threshold(m, valueOf(randomRow(), m.column()));
            return q("How many " + kind.plural() + " have a " + m.noun() + " greater than " + x + "?",
                    "SELECT COUNT(*) FROM " + t + " WHERE " + m.column() + " > " + x);
        }

        String[] aggregation(String fn) {
            Measure m = measure(false, fn.equals("SUM"));
            String word = switch (fn) {
                case "SUM" -> "total";
                case "MIN" -> "lowest";
                case "MAX" -> "highest";
                default -> "average";
            };
            String of;
            String where;
            if (rnd.nextBoolean()) {
                Category c = category();
                String v = (String) valueOf(randomRow(), c.column());
                of = "the " + kind.plural() + " that " + c.that(v);
                where = " WHERE " + c.column() + " = " + lit(v);
            } else {
                of = "all " + kind.plural();
                where = "";
            }
            String expr = fn.equals("AVG") ? "ROUND(AVG(" + m.column() + "), 2)" : fn + "(" + m.column() + ")";
            String rounding = fn.equals("AVG") ? ", rounded to 2 decimal places" : "";
            return q("What is the " + word + " " + m.noun() + " of " + of + rounding + "?",
                    "SELECT " + expr + " FROM " + t + where);
        }

        String[] ranking() {
            Measure m = measure(true, false);
            int k = rnd.nextInt(1, 4);
            boolean high = rnd.nextBoolean();
            String dir = high ? "highest" : "lowest";
            String question = k == 1
                    ? "Which " + kind.singular() + " has the " + dir + " " + m.noun() + "? Answer with its " + kind.label() + "."
                    : "Which " + k + " " + kind.plural() + " have the " + dir + " " + m.noun() + "? Answer with their "
                            + kind.label() + "s.";
            return q(question, "SELECT " + kind.label() + " FROM " + t + " ORDER BY " + m.column() + (high ? " DESC" : " ASC")
                    + " LIMIT " + k);
        }

        String[] comparison() {
            Measure m = measure(true, false);
            int a = rnd.nextInt(table.rows().size());
            int b = (a + 1 + rnd.nextInt(table.rows().size() - 1)) % table.rows().size();
            Object la = valueOf(table.rows().get(a), kind.label());
            Object lb = valueOf(table.rows().get(b), kind.label());
            boolean higher = rnd.nextBoolean();
            return q("Which has the " + (higher ? "higher " : "lower ") + m.noun() + ": " + kind.ref(la) + " or " + kind.ref(lb)
                            + "? Answer with the " + kind.label() + ".",
                    "SELECT " + kind.label() + " FROM " + t + " WHERE " + kind.label() + " IN (" + lit(la) + ", " + lit(lb)
                            + ") ORDER BY " + m.column() + (higher ? " DESC" : " ASC") + " LIMIT 1");
        }

        String[] filtering() {
            Category c = category();
            Measure m = measure(false, false);
            List<Object> row = randomRow();
            String v = (String) valueOf(row, c.column());
            Object x = threshold(m, valueOf(row, m.column()));
            return q("List the " + kind.label() + "s of the " + kind.plural() + " that " + c.that(v) + " and have a " + m.noun()
                            + " greater than " + x + ".",
                    "SELECT " + kind.label() + " FROM " + t + " WHERE " + c.column() + " = " + lit(v) + " AND " + m.column()
                            + " > " + x);
        }

        String[] lookup() {
            List<Object> row = randomRow();
            List<String> columns = new ArrayList<>();
            kind.categories().forEach(c -> columns.add(c.column()));
            kind.measures().forEach(m -> columns.add(m.column()));
            String col = columns.get(rnd.nextInt(columns.size()));
            Object label = valueOf(row, kind.label());
            return q("What is the " + col.replace('_', ' ') + " of " + kind.ref(label) + "?",
                    "SELECT " + col + " FROM " + t + " WHERE " + kind.label() + " = " + lit(label));
        }

        String[] insert() {
            SqlTable fresh = table(kind, new SplittableRandom(rnd.nextLong()));
            List<Object> row = new ArrayList<>(fresh.rows().get(0));
            row.set(0, (long) table.rows().size() + 1);
            if (!kind.label().equals("id")) {
                Set<String> taken = new HashSet<>();
                for (List<Object> r : table.rows()) taken.add((String) valueOf(r, kind.label()));
                row.set(1, uniqueNames(kind, rnd, 1, taken).iterator().next());
            }
            List<String> names = table.columnNames();
            StringBuilder with = new StringBuilder();
            StringBuilder values = new StringBuilder();
            for (int i = 0; i < names.size(); i++) {
                Object v = row.get(i);
                String shown = v instanceof String s ? "\"" + s + "\"" : ResultTable.cell(v);
                with.append(i == 0 ? "" : i == names.size() - 1 ? " and " : ", ").append(names.get(i)).append(' ').append(shown);
                values.append(i == 0 ? "" : ", ").append(lit(v));
            }
            return q("Add a new " + kind.singular() + " to the " + t + " table with " + with + ".",
                    "INSERT INTO " + t + " (" + String.join(", ", names) + ") VALUES (" + values + ")");
        }

        String[] update() {
            List<Object> row = randomRow();
            Object label = valueOf(row, kind.label());
            int variant = rnd.nextInt(3);
            if (variant == 0) {
                Category c = category();
                List<String> others = new ArrayList<>(c.values());
                others.remove(valueOf(row, c.column()));
                String v = others.get(rnd.nextInt(others.size()));
                return q("Change the " + c.column() + " of " + kind.ref(label) + " to " + v + ".",
                        "UPDATE " + t + " SET " + c.column() + " = " + lit(v) + " WHERE " + kind.label() + " = " + lit(label));
            }
            List<Measure> adjustable = kind.measures().stream().filter(m -> m.step() > 0).toList();
            if (variant == 1 && !adjustable.isEmpty()) {
                Measure m = adjustable.get(rnd.nextInt(adjustable.size()));
                Category c = category();
                String v = (String) valueOf(randomRow(), c.column());
                long by = (long) m.step() * rnd.nextInt(1, 6);
                return q("Increase the " + m.noun() + " of all " + kind.plural() + " that " + c.that(v) + " by " + by + ".",
                        "UPDATE " + t + " SET " + m.column() + " = " + m.column() + " + " + by + " WHERE " + c.column() + " = "
                                + lit(v));
            }
            Measure m = kind.measures().get(rnd.nextInt(kind.measures().size()));
            Object x = measureValues(m, rnd, 1).get(0);
            return q("Set the " + m.noun() + " of " + kind.ref(label) + " to " + ResultTable.cell(x) + ".",
                    "UPDATE " + t + " SET " + m.column() + " = " + lit(x) + " WHERE " + kind.label() + " = " + lit(label));
        }

        String[] delete() {
            if (rnd.nextBoolean()) {
                Category c = category();
                String v = (String) valueOf(randomRow(), c.column());
                return q("Delete all " + kind.plural() + " that " + c.that(v) + " from the " + t + " table.",
                        "DELETE FROM " + t + " WHERE " + c.column() + " = " + lit(v));
            }
            Object label = valueOf(randomRow(), kind.label());
            return q("Remove " + kind.ref(label) + " from the " + t + " table.",
                    "DELETE FROM " + t + " WHERE " + kind.label() + " = " + lit(label));
        }

        private Category category() {
            return kind.categories().get(rnd.nextInt(kind.categories().size()));
        }

        /** A measure; {@code distinct}: one without ties (to rank by); {@code summable}: one a total makes sense of. */
        private Measure measure(boolean distinct, boolean summable) {
            List<Measure> ok = kind.measures().stream().filter(m -> (!distinct || m.distinct()) && (!summable || m.summable())).toList();
            return ok.get(rnd.nextInt(ok.size()));
        }

        private List<Object> randomRow() {
            return table.rows().get(rnd.nextInt(table.rows().size()));
        }

        private Object valueOf(List<Object> row, String column) {
            return row.get(kind.index(column));
        }

        /** A round number just below {@code value}, so "greater than" it keeps the row it came from. */
        private static Object threshold(Measure m, Object value) {
            if (m.real()) return (long) Math.floor(((Double) value - 0.01) / m.nice()) * m.nice();
            return Math.floorDiv((Long) value - 1, m.nice()) * m.nice();
        }

        private static String lit(Object v) {
            return v instanceof String s ? TableHash.literal(s) : ResultTable.cell(v);
        }

        private static String[] q(String question, String sql) {
            return new String[] {question, sql};
        }
    }
}
