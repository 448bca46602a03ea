package dev.agentswarm.environments.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.environments.EpisodeStates;
import java.util.List;
import org.junit.jupiter.api.Test;

/** execute_sql may run again after a crash only for a statement that reads; a commit may. */
class SqlToolsIdempotencyTest {

    private final List<Tool> tools = SqlTools.tools(new EpisodeStates<>("sql"));

    private boolean idempotent(String query) {
        return tools.get(0).idempotent(Json.object().put("query", query));
    }

    @Test
    void readsMayRunAgainAndWritesMayNot() {
        assertEquals(SqlTools.EXECUTE_SQL, tools.get(0).name());
        assertTrue(idempotent("SELECT * FROM t WHERE a = 'x; DELETE FROM t'"));
        assertTrue(idempotent("  -- which rows\n select count(*) from t;"));
        assertTrue(idempotent("PRAGMA table_info(t)"));
        assertTrue(idempotent("EXPLAIN DELETE FROM t"), "EXPLAIN only describes");
        assertTrue(idempotent("VALUES (1)"));
        assertFalse(idempotent("INSERT INTO t VALUES (1)"));
        assertFalse(idempotent("update t set a = a + 1"));
        assertFalse(idempotent("DELETE FROM t"));
        assertFalse(idempotent("CREATE TABLE u (a)"));
        assertFalse(idempotent("WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x"), "WITH may end in a write");
        assertTrue(idempotent("SELECT 1; DELETE FROM t"), "two statements are refused: nothing runs");
        assertTrue(idempotent("ATTACH DATABASE 'x' AS y"), "refused: nothing runs");
        assertTrue(tools.get(0).idempotent(Json.object()), "no query: refused");
    }

    @Test
    void aCommitMayBeRepeated() {
        assertEquals(SqlTools.COMMIT_FINAL_ANSWER, tools.get(1).name());
        assertTrue(tools.get(1).idempotent(Json.object().putArray("answers").add("1")));
    }
}
