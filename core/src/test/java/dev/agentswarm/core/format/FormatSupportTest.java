package dev.agentswarm.core.format;

import static dev.agentswarm.core.format.FormatTestSupport.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.TextNode;
import org.junit.jupiter.api.Test;

class FormatSupportTest {

    @Test
    void splitThink() {
        assertEquals(new FormatSupport.ThinkSplit("a", " b", false), FormatSupport.splitThink("  <think>a</think> b", null));
        assertEquals(new FormatSupport.ThinkSplit("a", " b", false), FormatSupport.splitThink("a</think> b", null));
        assertEquals(new FormatSupport.ThinkSplit("a ", "", true), FormatSupport.splitThink("<think>a ", null));
        assertEquals(new FormatSupport.ThinkSplit("a ", "<x>b", true), FormatSupport.splitThink("<think>a <x>b", "<x>"));
        // a closing tag after the boundary is not the end of the reasoning
        assertEquals(new FormatSupport.ThinkSplit("", "<x>a</think>", false), FormatSupport.splitThink("<x>a</think>", "<x>"));
        assertEquals(new FormatSupport.ThinkSplit("", "plain", false), FormatSupport.splitThink("plain", null));
    }

    @Test
    void matchBraceIgnoresStrings() {
        String s = "x{\"a\": \"}\\\"}\", \"b\": {\"c\": 1}}tail";
        assertEquals(s.indexOf("}tail"), FormatSupport.matchBrace(s, 1, Integer.MAX_VALUE));
        assertEquals(-1, FormatSupport.matchBrace("{{}", 0, Integer.MAX_VALUE));
        assertEquals(-1, FormatSupport.matchBrace("{ }", 0, 2), "the budget bounds the scan");
    }

    @Test
    void stripFences() {
        assertEquals("{\"a\": 1}", FormatSupport.stripFences("```json\n{\"a\": 1}\n```"));
        assertEquals("{\"a\": 1}", FormatSupport.stripFences("```json {\"a\": 1}```"));
        assertEquals("plain", FormatSupport.stripFences("  plain "));
    }

    @Test
    void pyJsonUsesPythonSeparators() {
        assertEquals("{\"a\": [1, 2.5, \"é\\n\"], \"b\": {\"c\": null, \"d\": true}}",
                FormatSupport.pyJson(json("{\"a\":[1,2.5,\"é\\n\"],\"b\":{\"c\":null,\"d\":true}}")));
    }

    @Test
    void decodeArguments() {
        assertEquals(json("{\"a\":1}"), FormatSupport.decodeArguments(TextNode.valueOf(" {\"a\": 1} ")).value());
        assertEquals(json("{}"), FormatSupport.decodeArguments(null).value());
        FormatSupport.Args bad = FormatSupport.decodeArguments(TextNode.valueOf("{\"a\": 1} x"));
        assertNull(bad.value());
        assertTrue(bad.problem().contains("not valid JSON"), bad.problem());
    }

    @Test
    void snippetKeepsSurrogatePairsWhole() {
        String s = "ab\uD83D\uDE00cd";
        String cut = FormatSupport.snippet(s, 3);
        assertEquals("ab…", cut);
        assertFalse(FormatSupport.snippet("x".repeat(500), 10).length() > 11);
    }
}
