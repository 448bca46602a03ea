package dev.agentswarm.environments.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class TableHashTest {

    @Test
    void matchesAnIndependentPythonComputation() {
        // Python: md5(",".join(sorted(md5(",".join(non-null values))[:5] per row)).encode()[:1024]).
        assertEquals("735a884f6654b59bf5392f2135e1065d", TableHash.ofRows(List.of(List.of("a", "b"), Arrays.asList("c", null))));
        assertEquals("97bb205933f4ba5fb884ae965d6813af", TableHash.ofRows(List.of(Arrays.asList(null, null))),
                "a row of NULLs is CONCAT_WS's empty string");
        assertEquals("35144c2f439d4097eda2b4f120460005", TableHash.ofRows(List.of(List.of("Søren", "1,5"))), "UTF-8 bytes");
        assertEquals("d41d8", TableHash.rowHash(List.of()));
        assertEquals(TableHash.md5(",x").substring(0, 5), TableHash.rowHash(List.of("", "x")), "an empty first value still takes its comma");
        assertEquals(TableHash.EMPTY, TableHash.ofRows(List.of()), "GROUP_CONCAT of no rows is NULL");
    }

    @Test
    void groupConcatIsCutAt1024BytesAsMySqlDoes() {
        List<List<String>> rows = new ArrayList<>();
        for (int i = 0; i < 200; i++) rows.add(List.of(Integer.toString(i), "x"));
        assertEquals("901cf509ce8323566a51d2b498c50dd1", TableHash.ofRows(rows), "truncated: 170 hashes and 4 digits of the 171st");
        // Without the cut it would be 76f1c607…; 170 rows or fewer never reach the limit.
        assertTrue(!TableHash.ofRows(rows).equals("76f1c60714d4ce845961183e2463ab9b"));
    }

    @Test
    void aDatabaseTableHashesItsRowsInAnyOrder() {
        SqlTable t = new SqlTable("My Table", List.of(new SqlTable.Column("a b", "TEXT"), new SqlTable.Column("c", "TEXT")),
                List.of(Arrays.asList("c", null), List.of("a", "b")));
        try (SqliteDatabase db = SqliteDatabase.open(List.of(t))) {
            assertEquals("735a884f6654b59bf5392f2135e1065d", db.hash(List.of(t)));
            db.update("DELETE FROM \"My Table\"");
            assertEquals("None", db.hash(List.of(t)));
        }
        assertEquals("a_b", TableHash.combine(List.of("b", "a")));
        assertEquals("e63818ea2e715870f6b76d69d94d6143", TableHash.goldOf("[('e63818ea2e715870f6b76d69d94d6143',)]"));
    }

    /**
     * AgentBench's INSERT/UPDATE tasks: load the record's table (all columns TEXT, values as
     * Python's str), run the gold {@code label} SQL, hash: the dev file's 40 all reproduce their
     * {@code answer_md5}; of the standard file's 200, 195 do with the gold SQL as written (two more
     * need MySQL's backslash escapes read, one gold statement does not parse, two disagree).
     */
    @Test
    void reproducesTheGoldHashOfEveryDevModificationTask() throws IOException {
        Path dev = DbBenchFiles.find("dev.jsonl");
        assumeTrue(dev != null, "../shared/data/dbbench is absent");
        int[] dv = reproduce(dev);
        assertEquals(40, dv[1], "the dev file has 20 INSERT and 20 UPDATE tasks");
        assertEquals(40, dv[0], "every dev modification reproduces its answer_md5");
        Path standard = DbBenchFiles.find("standard.jsonl");
        if (standard != null) {
            int[] st = reproduce(standard);
            assertEquals(200, st[1]);
            assertTrue(st[0] >= 195, "standard: " + st[0] + " of 200");
        }
    }

    /** {reproduced, modification tasks} of a DBBench file. */
    private static int[] reproduce(Path file) throws IOException {
        int ok = 0;
        int total = 0;
        for (String line : Files.readAllLines(file)) {
            JsonNode r = Json.parse(line);
            if (!AnswerMatcher.isModification(r.path("type").path(0).asText())) continue;
            total++;
            SqlTable table = DbBenchFiles.table(r.path("table"));
            try (SqliteDatabase db = SqliteDatabase.open(List.of(table))) {
                for (JsonNode sql : r.path("label")) db.update(sql.asText());
                if (AnswerMatcher.matches(db.hash(List.of(table)), r.path("answer_md5").asText(), "INSERT")) ok++;
            } catch (IllegalArgumentException e) {
                // a gold statement SQLite cannot run: not reproduced
            }
        }
        return new int[] {ok, total};
    }
}
