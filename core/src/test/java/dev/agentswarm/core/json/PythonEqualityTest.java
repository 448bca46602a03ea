package dev.agentswarm.core.json;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

class PythonEqualityTest {

    private static JsonNode v(String json) {
        try {
            return Json.parse(json);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean eq(String a, String b) {
        return PythonEquality.equal(v(a), v(b));
    }

    @Test
    void numbersCompareByValueWithBoolsAsZeroAndOne() {
        assertTrue(eq("1", "1.0"));
        assertTrue(eq("1", "true"));
        assertTrue(eq("0.0", "false"));
        assertTrue(eq("0.1", "0.10000000000000001"), "the same double, as Python reads both");
        assertFalse(eq("0.1", "0.1000000000000001"), "the next doubles are not equal");
        assertTrue(eq("12345678901234567890", "12345678901234567890"));
        assertFalse(eq("12345678901234567890", "12345678901234567891"));
        assertFalse(eq("2", "true"));
    }

    @Test
    void stringsNoneListsAndDictsAsPythonComparesThem() {
        assertFalse(eq("1", "\"1\""), "a string equals only a string");
        assertTrue(eq("\"a\"", "\"a\""));
        assertTrue(eq("null", "null"));
        assertFalse(eq("null", "0"));
        assertFalse(eq("null", "\"\""));
        assertTrue(eq("[1, {\"a\": 2}]", "[1.0, {\"a\": 2.0}]"));
        assertFalse(eq("[1, 2]", "[2, 1]"), "lists in order");
        assertTrue(eq("{\"a\": 1, \"b\": [true]}", "{\"b\": [1], \"a\": 1.0}"), "dicts by key");
        assertFalse(eq("{\"a\": 1}", "{\"a\": 1, \"b\": 2}"));
        assertFalse(eq("[]", "{}"));
        assertTrue(PythonEquality.equal(null, Json.MAPPER.nullNode()), "missing is None");
    }
}
