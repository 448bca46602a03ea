package dev.agentswarm.environments.bfcl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/** BFCL's readings of Java and JavaScript source strings, quirks included, and Python's view of the values. */
class BfclConvertersTest {

    private static String java(String source, String type, String item) {
        return dev.agentswarm.core.json.PythonText.repr(JavaValues.convert(source, type, item));
    }

    private static String js(String source, String type, String item) {
        return dev.agentswarm.core.json.PythonText.repr(JsValues.convert(source, type, item));
    }

    @Test
    void javaScalarsNeedTheirSuffixesAndLowerCaseBooleans() {
        assertEquals("42", java("42", "integer", null));
        assertEquals("'42'", java("42", "long", null), "a long without L stays a string");
        assertEquals("42", java("42L", "long", null));
        assertEquals("2.5", java("2.5f", "float", null));
        assertEquals("'2.5'", java("2.5", "float", null), "a float without f stays a string");
        assertEquals("1.0", java("1", "double", null));
        assertEquals("'0.5d'", java("0.5d", "double", null));
        assertEquals("True", java("true", "boolean", null));
        assertEquals("'True'", java("True", "boolean", null));
        assertEquals("'c'", java("c", "char", null));
        assertThrows(IllegalArgumentException.class, () -> JavaValues.convert("x", "Set", null));
    }

    @Test
    void javaCollections() {
        assertEquals("[101, 202, 303]", java("new ArrayList<Long>(Arrays.asList(101L, 202L, 303L))", "ArrayList", "long"));
        assertEquals("['a', 'b']", java("new ArrayList<String>() {{ add(\"a\"); add(\"b\"); }}", "ArrayList", "String"));
        assertEquals("[]", java("new ArrayList<>()", "ArrayList", "long"));
        assertEquals("'List.of(1L)'", java("List.of(1L)", "ArrayList", "long"));
        assertEquals("['\"a\"', '\"b\"']", java("new String[]{\"a\", \"b\"}", "Array", "String"), "an array's quotes stay");
        assertEquals("[1, 2]", java("new int[]{1, 2}", "Array", "integer"));
        assertEquals("{'limit': 50, 'name': 'x', 'on': True, 'r': 0.5}",
                java("new HashMap<String, Object>() {{ put(\"limit\", 50); put(\"name\", \"x\"); put(\"on\", true); put(\"r\", 0.5); }}",
                        "HashMap", null));
        assertEquals("{}", java("new HashMap<String, Object>()", "HashMap", null));
    }

    @Test
    void javascriptValues() {
        assertEquals("'abc'", js("'abc'", "String", null));
        assertEquals("'abc'", js("abc", "String", null));
        assertEquals("4.0", js("4", "float", null));
        assertEquals("'4.5e1'", js("4.5e1", "float", null));
        assertEquals("123", js("123n", "Bigint", null));
        assertEquals("[1, 'two', True]", js("[1, 'two', true]", "array", null));
        assertEquals("['completed', 'failed']", js("['completed', 'failed']", "array", "String"));
        assertEquals("[[1, 2], [3, 4]]", js(" [ [1, 2], [3, 4]]", "array", "array"));
        assertEquals("[4, 5, 6]", js("new Array(4, 5, 6)", "array", "integer"));
        assertEquals("{'key1': 123, 'key2': 'value', 'key3': False}", js("{'key1': 123, 'key2': 'value', 'key3': false}", "dict", null));
        assertEquals("{'initialState': 'initialStateObject', 'middlewares': ['loggerMiddleware']}",
                js("{\"initialState\": initialStateObject, \"middlewares\": [\"loggerMiddleware\"]}", "dict", null));
        assertEquals("{}", js("{}", "dict", null));
    }

    @Test
    void pythonEqualityOfDecodedValues() {
        JsonNode one = BfclFixtures.read("1");
        assertTrue(BfclValues.equal(one, BfclFixtures.read("1.0")));
        assertTrue(BfclValues.equal(one, BfclFixtures.read("true")));
        assertFalse(BfclValues.equal(one, BfclFixtures.read("\"1\"")));
        assertTrue(BfclValues.equal(BfclFixtures.read("[1, {\"a\": 2}]"), BfclFixtures.read("[1.0, {\"a\": 2.0}]")));
        assertFalse(BfclValues.equal(BfclFixtures.read("[1, 2]"), BfclFixtures.read("[2, 1]")));
        assertEquals(BfclValues.PyType.BOOL, BfclValues.typeOf(BfclFixtures.read("true")), "a bool is not an int to the type check");
        assertEquals("[None, \"it's\", 2.0]", dev.agentswarm.core.json.PythonText.repr(BfclFixtures.read("[null, \"it's\", 2.0]")));
        assertEquals("1_000", PythonNumbers.parse("1_000").isIntegralNumber() ? "1_000" : "not an int");
        assertEquals("12.5", dev.agentswarm.core.json.PythonText.repr(PythonNumbers.parse(" 12.5 ")));
        assertEquals("'12a'", dev.agentswarm.core.json.PythonText.repr(PythonNumbers.parse("12a")));
    }
}
