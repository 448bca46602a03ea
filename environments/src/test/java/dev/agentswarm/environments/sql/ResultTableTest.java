package dev.agentswarm.environments.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResultTableTest {

    private static String render(List<String> columns, List<List<Object>> rows) {
        ResultTable.Builder b = new ResultTable.Builder(columns);
        for (List<Object> r : rows) b.row(r);
        return b.finish(false);
    }

    @Test
    void rendersAReadableTableAndReadsItBack() {
        String text = render(List.of("name", "salary"), List.of(List.of("Ada Park", 72000L), Arrays.asList("Ben", null)));
        assertEquals("| name | salary |\n| --- | --- |\n| Ada Park | 72000 |\n| Ben | NULL |\n(2 rows)", text);
        ResultTable.Parsed p = ResultTable.parse("<tool_response>\n" + text + "\n</tool_response>");
        assertEquals(List.of("name", "salary"), p.columns());
        assertEquals(List.of("Ada Park", "72000", "Ben", "NULL"), p.values());
        assertEquals("| n |\n| --- |\n(0 rows)", render(List.of("n"), List.of()));
        assertEquals(List.of(), ResultTable.parse(render(List.of("n"), List.of())).rows());
        assertNull(ResultTable.parse("Query OK, 1 row affected."));
    }

    @Test
    void awkwardValuesSurviveTheRoundTrip() {
        List<String> odd = List.of("", " ", "a | b", "a|b", "ends with \\", "\\|", " lead", "trail ", "| x |", "x\\ | y", "ü €");
        List<List<Object>> rows = new ArrayList<>();
        for (String v : odd) rows.add(List.of(v, v));
        ResultTable.Parsed p = ResultTable.parse(render(List.of("a | b", "c"), rows));
        assertEquals(List.of("a | b", "c"), p.columns());
        for (int i = 0; i < odd.size(); i++) assertEquals(List.of(odd.get(i), odd.get(i)), p.rows().get(i), "value " + i);
        // A line break stays on its line, written as \n.
        assertEquals(List.of("a\\nb"), ResultTable.parse(render(List.of("x"), List.<List<Object>>of(List.of("a\nb")))).values());
    }

    @Test
    void valuesPrintAsPythonWould() {
        assertEquals("3.0", ResultTable.cell(3.0));
        assertEquals("61234.33", ResultTable.cell(61234.33));
        assertEquals("0.30000000000000004", ResultTable.cell(0.1 + 0.2));
        assertEquals("7", ResultTable.cell(7));
        assertEquals("X'00ff'", ResultTable.cell(new byte[] {0, (byte) 255}));
    }

    @Test
    void longResultsAreCutAndTheCutIsMarked() {
        List<List<Object>> rows = new ArrayList<>();
        for (long i = 0; i < 120; i++) rows.add(List.of(i));
        String text = render(List.of("i"), rows);
        assertTrue(text.endsWith("(50 of 120 rows shown; the rest were cut. Narrow the query with WHERE, LIMIT or an aggregate"
                + " to see them)"), text);
        assertEquals(50, ResultTable.parse(text).rows().size());
        List<List<Object>> wide = new ArrayList<>();
        for (int i = 0; i < 40; i++) wide.add(List.of("x".repeat(500)));
        String w = render(List.of("w"), wide);
        assertTrue(w.length() <= ResultTable.MAX_CHARS + 200, "within the character budget: " + w.length());
        assertTrue(w.contains("x".repeat(ResultTable.MAX_CELL) + "…"), "a long value is cut and marked");
        assertTrue(w.contains("of 40 rows shown"), w.substring(w.length() - 120));
    }
}
