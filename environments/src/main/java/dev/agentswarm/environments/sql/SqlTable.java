package dev.agentswarm.environments.sql;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Pattern;

/**
 * One table of a task's database, as the task carries it between nodes: its name, its columns
 * (name and declared SQLite type) and its rows. Values are {@link Long}, {@link Double},
 * {@link String} or null, bound with their own types when the table is loaded (a TEXT column keeps
 * the text exactly). Serialised as a JSON array of tables in the task's {@value #METADATA_KEY}
 * metadata: {@code [{"name": …, "columns": [{"name": …, "type": …}], "rows": [[…], …]}]}.
 */
public record SqlTable(String name, List<Column> columns, List<List<Object>> rows) {

    /** The task metadata key holding the tables as JSON. */
    public static final String METADATA_KEY = "tables";

    /** A declared type: a word or two and an optional size, nothing that could end the column definition. */
    private static final Pattern TYPE = Pattern.compile("[A-Za-z][A-Za-z0-9_ ]{0,40}(\\(\\s*\\d+\\s*(,\\s*\\d+\\s*)?\\))?");

    public record Column(String name, String type) {
        public Column {
            if (name == null) throw new IllegalArgumentException("a column has no name");
            if (type == null || !TYPE.matcher(type).matches()) {
                throw new IllegalArgumentException("column \"" + name + "\" has an unusable type \"" + type + "\"");
            }
        }
    }

    public SqlTable {
        if (name == null || name.isEmpty()) throw new IllegalArgumentException("a table has no name");
        if (columns == null || columns.isEmpty()) throw new IllegalArgumentException("table \"" + name + "\" has no columns");
        columns = List.copyOf(columns);
        List<List<Object>> copy = new ArrayList<>(rows.size());
        for (int i = 0; i < rows.size(); i++) {
            List<Object> row = rows.get(i);
            if (row.size() != columns.size()) {
                throw new IllegalArgumentException("table \"" + name + "\" row " + i + " has " + row.size() + " values for "
                        + columns.size() + " columns");
            }
            for (Object v : row) {
                if (v != null && !(v instanceof Long) && !(v instanceof Double) && !(v instanceof String)) {
                    throw new IllegalArgumentException("table \"" + name + "\" row " + i + " holds a " + v.getClass().getSimpleName()
                            + "; values are Long, Double, String or null");
                }
            }
            copy.add(Collections.unmodifiableList(new ArrayList<>(row)));
        }
        rows = Collections.unmodifiableList(copy);
    }

    public List<String> columnNames() {
        return columns.stream().map(Column::name).toList();
    }

    /** {@code CREATE TABLE "name" ("col" TYPE, …)}. */
    public String createStatement() {
        StringBuilder sb = new StringBuilder("CREATE TABLE ").append(TableHash.quote(name)).append(" (");
        for (int i = 0; i < columns.size(); i++) {
            sb.append(i == 0 ? "" : ", ").append(TableHash.quote(columns.get(i).name())).append(' ').append(columns.get(i).type());
        }
        return sb.append(')').toString();
    }

    /** {@code INSERT INTO "name" VALUES (?, …)}. */
    public String insertStatement() {
        return "INSERT INTO " + TableHash.quote(name) + " VALUES (" + String.join(", ", Collections.nCopies(columns.size(), "?")) + ")";
    }

    /** AgentBench's one-line description: "The name of this table is X, and the headers of this table are a,b,c." */
    public String describe() {
        return "The name of this table is " + name + ", and the headers of this table are " + String.join(",", columnNames()) + ".";
    }

    public static String toJson(List<SqlTable> tables) {
        ArrayNode out = Json.MAPPER.createArrayNode();
        for (SqlTable t : tables) {
            ObjectNode o = out.addObject();
            o.put("name", t.name());
            ArrayNode cols = o.putArray("columns");
            for (Column c : t.columns()) cols.addObject().put("name", c.name()).put("type", c.type());
            ArrayNode rows = o.putArray("rows");
            for (List<Object> row : t.rows()) {
                ArrayNode r = rows.addArray();
                for (Object v : row) {
                    if (v == null) r.addNull();
                    else if (v instanceof Long l) r.add(l);
                    else if (v instanceof Double d) r.add(d);
                    else r.add((String) v);
                }
            }
        }
        return Json.write(out);
    }

    /** The tables of a task's metadata; {@code where} names the task in errors. */
    public static List<SqlTable> fromJson(String json, String where) {
        if (json == null) throw new IllegalArgumentException(where + " has no \"" + METADATA_KEY + "\" metadata");
        JsonNode root;
        try {
            root = Json.parse(json);
        } catch (IOException e) {
            throw new IllegalArgumentException(where + ": \"" + METADATA_KEY + "\" is not JSON: " + e.getMessage());
        }
        if (!root.isArray() || root.isEmpty()) {
            throw new IllegalArgumentException(where + ": \"" + METADATA_KEY + "\" must be a non-empty JSON array of tables");
        }
        List<SqlTable> tables = new ArrayList<>();
        for (int t = 0; t < root.size(); t++) {
            JsonNode node = root.get(t);
            String at = where + ": " + METADATA_KEY + "[" + t + "]";
            JsonNode name = node.path("name");
            if (!name.isTextual()) throw new IllegalArgumentException(at + ".name must be a string");
            List<Column> columns = new ArrayList<>();
            JsonNode cols = node.path("columns");
            if (!cols.isArray()) throw new IllegalArgumentException(at + ".columns must be an array");
            for (JsonNode c : cols) {
                if (!c.path("name").isTextual()) throw new IllegalArgumentException(at + ".columns: every column needs a string name");
                columns.add(new Column(c.path("name").asText(), c.path("type").asText("TEXT")));
            }
            List<List<Object>> rows = new ArrayList<>();
            JsonNode rs = node.path("rows");
            if (!rs.isArray()) throw new IllegalArgumentException(at + ".rows must be an array");
            for (JsonNode r : rs) {
                if (!r.isArray()) throw new IllegalArgumentException(at + ".rows: every row must be an array");
                List<Object> row = new ArrayList<>(r.size());
                for (JsonNode v : r) row.add(value(v, at));
                rows.add(row);
            }
            try {
                tables.add(new SqlTable(name.asText(), columns, rows));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
            }
        }
        return tables;
    }

    private static Object value(JsonNode v, String at) {
        if (v.isNull()) return null;
        if (v.isIntegralNumber() && v.canConvertToLong()) return v.asLong();
        if (v.isNumber()) return v.asDouble();
        if (v.isTextual()) return v.asText();
        throw new IllegalArgumentException(at + ".rows: a value must be a number, a string or null, got " + v);
    }
}
