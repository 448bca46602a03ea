package dev.agentswarm.core.json;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class PythonTextTest {

    @Test
    void floatsPrintAsPythonsRepr() {
        assertEquals("335.0", PythonText.floatRepr(335.0));
        assertEquals("1e+16", PythonText.floatRepr(1e16));
        assertEquals("1000000000000000.0", PythonText.floatRepr(1e15));
        assertEquals("0.0001", PythonText.floatRepr(0.0001));
        assertEquals("1e-05", PythonText.floatRepr(0.00001));
        assertEquals("0.30000000000000004", PythonText.floatRepr(0.1 + 0.2));
        assertEquals("1.5e+300", PythonText.floatRepr(1.5e300));
        assertEquals("-2.5", PythonText.floatRepr(-2.5));
        assertEquals("-0.0", PythonText.floatRepr(-0.0));
        assertEquals("0.002", PythonText.floatRepr(2.0E-3), "the shortest digits, where Java 17's Double.toString is not");
        assertEquals("NaN", PythonText.jsonFloat(Double.NaN));
        assertEquals("-Infinity", PythonText.jsonFloat(Double.NEGATIVE_INFINITY));
    }

    @Test
    void stringsAsJsonDumpsWritesThem() {
        StringBuilder ascii = new StringBuilder();
        PythonText.jsonString(ascii, "caf\u00e9 \"q\"\n\\\u007f", true);
        assertEquals("\"caf\\u00e9 \\\"q\\\"\\n\\\\\\u007f\"", ascii.toString());
        StringBuilder plain = new StringBuilder();
        PythonText.jsonString(plain, "caf\u00e9\u0001", false);
        assertEquals("\"caf\u00e9\\u0001\"", plain.toString());
    }

    @Test
    void jsonDumpsOfATree() throws Exception {
        assertEquals("{\"a\": [1, 2.5, true, null], \"b\": {\"c\": \"\\u00e9\"}, \"d\": 4.0}",
                PythonText.dumps(Json.MAPPER.readTree("{\"a\": [1, 2.5, true, null], \"b\": {\"c\": \"\u00e9\"}, \"d\": 4.0}")));
    }

    @Test
    void reprOfADecodedTreeAndOfStrings() throws Exception {
        assertEquals("{'a': [1, 2.5, True, None], 'b': {'c': '\u00e9'}, 'd': 4.0}",
                PythonText.repr(Json.MAPPER.readTree("{\"a\": [1, 2.5, true, null], \"b\": {\"c\": \"\u00e9\"}, \"d\": 4.0}")));
        assertEquals("\"it's\"", PythonText.stringRepr("it's"), "a single quote inside: double quotes");
        assertEquals("'say \"hi\" it\\'s'", PythonText.stringRepr("say \"hi\" it's"), "both inside: single quotes, escaped");
        assertEquals("'a\\nb\\x01\\\\'", PythonText.stringRepr("a\nb\u0001\\"));
    }
}
