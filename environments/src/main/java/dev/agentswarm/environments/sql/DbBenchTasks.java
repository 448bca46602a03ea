package dev.agentswarm.environments.sql;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.environments.JsonRecords;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads AgentBench DBBench JSONL (data/dbbench/dev.jsonl, standard.jsonl) into tasks in the sql
 * suite's shape: the table (metadata {@code tables}, so any node can build the episode's database),
 * the type, and as the answer the label values or, for a modification, the gold table hash; the
 * label is kept too (a modification's is its gold statement). A malformed record fails with its
 * file, line and field.
 */
final class DbBenchTasks {

    static final String LABEL = "label";
    static final String MD5 = "answer_md5";

    private DbBenchTasks() {}

    static List<Task> load(Path file, String suite, String split, int limit) {
        List<Task> tasks = new ArrayList<>();
        for (JsonRecords.Located r : JsonRecords.read(file, limit, "DBBench file",
                "configure agentswarm.environments.dbbench." + split + "-path; the samples are in ../shared/data/dbbench")) {
            tasks.add(task(r.node(), r.where(), suite, split, tasks.size()));
        }
        return tasks;
    }

    private static Task task(JsonNode r, String where, String suite, String split, int index) {
        String description = text(r, "description", where);
        JsonNode table = require(r, "table", where);
        String name = text(table, "table_name", where + " table");
        JsonNode info = require(table, "table_info", where + " table");
        List<SqlTable.Column> columns = new ArrayList<>();
        for (JsonNode c : require(info, "columns", where + " table.table_info")) {
            // A column may be named "" (one real dev record has one): SQLite takes "" as a quoted name.
            JsonNode n = require(c, "name", where + " table.table_info.columns[" + columns.size() + "]");
            if (!n.isTextual()) throw new IllegalArgumentException(where + ": a column's \"name\" must be a string");
            columns.add(new SqlTable.Column(n.asText(), "TEXT")); // all TEXT, as AgentBench loads them
        }
        if (columns.isEmpty()) throw new IllegalArgumentException(where + ": table.table_info.columns is empty");
        List<List<Object>> rows = new ArrayList<>();
        for (JsonNode row : require(info, "rows", where + " table.table_info")) {
            List<Object> values = new ArrayList<>();
            for (JsonNode v : row) values.add(v.isNull() ? null : v.asText());
            rows.add(values);
        }
        SqlTable sqlTable;
        try {
            sqlTable = new SqlTable(name, columns, rows);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + e.getMessage());
        }
        JsonNode type = require(r, "type", where);
        String kind = type.isArray() && !type.isEmpty() ? type.get(0).asText() : type.asText();
        JsonNode label = require(r, "label", where);
        if (!label.isArray()) throw new IllegalArgumentException(where + ": field \"label\" must be an array");
        boolean modification = AnswerMatcher.isModification(kind);
        String md5 = modification ? TableHash.goldOf(text(r, MD5, where)) : null;
        if (modification && md5 == null) throw new IllegalArgumentException(where + ": field \"answer_md5\" holds no MD5 digest");
        Map<String, String> meta = new LinkedHashMap<>();
        meta.put(Task.SUITE, suite);
        meta.put(Task.SPLIT, split);
        meta.put(SqlTable.METADATA_KEY, SqlTable.toJson(List.of(sqlTable)));
        meta.put(SqlTasks.TYPE, kind);
        meta.put(LABEL, Json.write(label));
        String addition = r.path("add_description").asText("");
        String prompt = description + (addition.isBlank() ? "" : "\n" + addition);
        // The answer SqlEpisode scores against: the label values, or the gold table hash.
        return new Task(suite + "-" + split + "-" + index, prompt, modification ? md5 : Json.write(label), meta);
    }

    private static JsonNode require(JsonNode node, String field, String where) {
        return JsonRecords.Located.require(node, field, where);
    }

    private static String text(JsonNode node, String field, String where) {
        return new JsonRecords.Located(node, where).text(field);
    }
}
