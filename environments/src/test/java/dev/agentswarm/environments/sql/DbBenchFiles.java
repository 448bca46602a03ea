package dev.agentswarm.environments.sql;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The real DBBench files when ../shared/data is beside the repository, and their tables as AgentBench loads them. */
final class DbBenchFiles {

    private DbBenchFiles() {}

    /** {@code shared/data/dbbench/<name>} seen from the repository root or from a module, or null. */
    static Path find(String name) {
        for (String base : List.of("../shared/data/dbbench", "../../shared/data/dbbench")) {
            Path p = Path.of(base, name);
            if (Files.isRegularFile(p)) return p;
        }
        return null;
    }

    /** A record's {@code table}: every column TEXT, every value Python's {@code str} of it (AgentBench's init SQL). */
    static SqlTable table(JsonNode t) {
        List<SqlTable.Column> columns = new ArrayList<>();
        for (JsonNode c : t.path("table_info").path("columns")) columns.add(new SqlTable.Column(c.path("name").asText(), "TEXT"));
        List<List<Object>> rows = new ArrayList<>();
        for (JsonNode r : t.path("table_info").path("rows")) {
            List<Object> row = new ArrayList<>();
            for (JsonNode v : r) {
                row.add(v.isTextual() ? v.textValue() : v.isNull() ? "None" : v.isDouble() || v.isFloat() || v.isBigDecimal()
                        ? dev.agentswarm.core.json.PythonText.floatRepr(v.asDouble()) : v.asText());
            }
            rows.add(row);
        }
        return new SqlTable(t.path("table_name").asText(), columns, rows);
    }
}
