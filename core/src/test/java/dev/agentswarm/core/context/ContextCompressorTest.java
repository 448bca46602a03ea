package dev.agentswarm.core.context;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Role;
import dev.agentswarm.core.protocol.ToolCall;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ContextCompressorTest {

    private static final TokenCounter APPROX = ApproxTokenCounter.INSTANCE;

    /** Counts words and punctuation runs: not proportional to length, to keep the compressor honest. */
    private static final TokenCounter WORDS = text -> {
        if (text == null) return 0;
        int n = 0;
        boolean inWord = false;
        for (int i = 0; i < text.length(); i++) {
            boolean w = Character.isLetterOrDigit(text.charAt(i));
            if (w && !inWord) n++;
            if (!w && !Character.isWhitespace(text.charAt(i))) n++;
            inWord = w;
        }
        return n;
    };

    private static ToolCall call(String id, String name, String expression) {
        return new ToolCall(id, name, Json.object().put("expression", expression));
    }

    private static List<Message> conversation(Message... history) {
        List<Message> m = new ArrayList<>();
        m.add(Message.system("You are a careful assistant."));
        m.add(Message.user("What is (2 + 3) * 4, then squared?"));
        m.addAll(List.of(history));
        return m;
    }

    private static int tokens(TokenCounter c, List<Message> ms) {
        int n = 0;
        for (Message m : ms) n += c.count(m);
        return n;
    }

    @Test
    void withinBudgetReturnsTheSameList() {
        List<Message> in = conversation(Message.assistant("", List.of(call("a", "calculator", "(2+3)*4"))),
                Message.tool("a", "calculator", "20"));
        ContextCompressor c = new ContextCompressor(APPROX);
        CompressedContext out = c.fit(in);
        assertSame(in, out.messages());
        assertFalse(out.compressed());
        assertEquals(tokens(APPROX, in), out.tokens());
        assertEquals(0, out.shortenedObservations());
        assertEquals(0, out.foldedMessages());
        assertEquals(12_000, c.budget());
        // A caller's running total skips the count altogether.
        CompressedContext known = c.fit(in, 123);
        assertSame(in, known.messages());
        assertEquals(123, known.tokens());
        // Exactly at the budget still fits.
        CompressedContext exact = new ContextCompressor(APPROX, tokens(APPROX, in)).fit(in);
        assertSame(in, exact.messages());
    }

    @Test
    void observationsAreShortenedBeforeAnythingIsFolded() {
        String big = "0123456789".repeat(300);
        List<Message> in = conversation(
                Message.assistant("", List.of(call("a", "search", "q1"))), Message.tool("a", "search", big),
                Message.assistant("", List.of(call("b", "search", "q2"))), Message.tool("b", "search", big),
                Message.assistant("", List.of(call("c", "search", "q3"))), Message.tool("c", "search", big));
        int full = tokens(APPROX, in);
        // Room for everything once the two older observations are cut to their heads.
        ContextCompressor c = new ContextCompressor(APPROX, full - 1200);
        CompressedContext out = c.fit(in);
        assertTrue(out.compressed());
        assertEquals(0, out.foldedMessages());
        assertEquals(2, out.shortenedObservations());
        assertEquals(in.size(), out.messages().size());
        assertTrue(out.tokens() <= c.budget());
        assertEquals(big.substring(0, ContextCompressor.OBSERVATION_HEAD_CHARS)
                + "\n…[observation shortened: 400 of 3000 characters kept]", out.messages().get(3).content());
        assertEquals(big, out.messages().get(7).content(), "the current turn stays verbatim");

        // Only one needs cutting when the budget is a little looser: oldest first.
        CompressedContext one = new ContextCompressor(APPROX, full - 500).fit(in);
        assertEquals(1, one.shortenedObservations());
        assertTrue(one.messages().get(3).content().contains("observation shortened"));
        assertEquals(big, one.messages().get(5).content());
    }

    @Test
    void oldestTurnsFoldIntoOneSummary() {
        List<Message> history = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            history.add(Message.assistant("thinking " + i, List.of(call("id" + i, "calculator", i + "+1"))));
            history.add(Message.tool("id" + i, "calculator", (i + 1) + " " + "pad ".repeat(100)));
        }
        List<Message> in = conversation(history.toArray(new Message[0]));
        ContextCompressor c = new ContextCompressor(APPROX, 600);
        CompressedContext out = c.fit(in);
        assertTrue(out.tokens() <= 600, "tokens " + out.tokens());
        assertEquals(out.tokens(), tokens(APPROX, out.messages()));
        Message summary = out.messages().get(2);
        assertEquals(Role.USER, summary.role());
        int k = out.foldedMessages() / 2;
        assertTrue(k >= 1 && k < 10);
        assertTrue(summary.content().startsWith("[Summary of earlier turns 1–" + k + "]\n"), summary.content());
        assertTrue(summary.content().contains("turn 1: called calculator({\"expression\":\"0+1\"})\n  → calculator: 1 pad pad"),
                summary.content());
        // The kept turns follow, whole: each tool message right after its assistant call.
        List<Message> kept = out.messages().subList(3, out.messages().size());
        assertEquals(in.subList(2 + out.foldedMessages(), in.size()).size(), kept.size());
        for (int i = 0; i < kept.size(); i += 2) {
            assertEquals(Role.ASSISTANT, kept.get(i).role());
            assertEquals(kept.get(i).toolCalls().get(0).id(), kept.get(i + 1).toolCallId());
        }
        assertEquals(in.get(in.size() - 1), out.messages().get(out.messages().size() - 1));
        // Deterministic.
        assertEquals(out, c.fit(in));
    }

    @Test
    void textFormatTurnsFoldTheirUserObservationsToo() {
        List<Message> history = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            history.add(Message.assistant("<tool_call>{\"name\":\"calculator\",\"arguments\":{\"expression\":\"" + i + "\"}}</tool_call>"));
            history.add(Message.user("<tool_response>" + "r".repeat(300) + "</tool_response>"));
        }
        List<Message> in = conversation(history.toArray(new Message[0]));
        CompressedContext out = new ContextCompressor(APPROX, 700).fit(in);
        assertTrue(out.tokens() <= 700);
        assertTrue(out.foldedMessages() > 0);
        assertTrue(out.foldedMessages() % 2 == 0, "a turn folds with its observation");
        String s = out.messages().get(2).content();
        assertTrue(s.contains("turn 1: assistant said: <tool_call>{\"name\":\"calculator\""), s);
        assertTrue(s.contains("\n  → user: <tool_response>rrr"), s);
    }

    @Test
    void lastResortCutsTheTaskThenTheSystemPrompt() {
        List<Message> in = new ArrayList<>(List.of(Message.system("S".repeat(400)), Message.user("T".repeat(4000))));
        ContextCompressor c = new ContextCompressor(APPROX, 300);
        CompressedContext out = c.fit(in);
        assertTrue(out.tokens() <= 300);
        assertEquals("S".repeat(400), out.messages().get(0).content(), "the system prompt is cut only after the task");
        String task = out.messages().get(1).content();
        assertTrue(task.startsWith("TTTT") && task.contains("…[task shortened: ") && task.endsWith(" of 4000 characters kept]"), task);

        CompressedContext tiny = new ContextCompressor(APPROX, 40).fit(in);
        assertTrue(tiny.tokens() <= 40);
        assertTrue(tiny.messages().get(0).content().contains("…[system prompt shortened: "), tiny.messages().get(0).content());
    }

    @Test
    void currentTurnIsCutLastAndItsToolCallsKept() {
        List<Message> in = conversation(
                Message.assistant("x".repeat(2000), List.of(call("a", "calculator", "1+1"))),
                Message.tool("a", "calculator", "y".repeat(2000)));
        ContextCompressor c = new ContextCompressor(APPROX, 300);
        CompressedContext out = c.fit(in);
        assertTrue(out.tokens() <= 300);
        assertEquals(4, out.messages().size());
        Message a = out.messages().get(2);
        assertEquals(in.get(2).toolCalls(), a.toolCalls());
        assertEquals("", a.content(), "the assistant's text goes before the observation is cut");
        Message t = out.messages().get(3);
        assertEquals("a", t.toolCallId());
        assertTrue(t.content().startsWith("yyy") && t.content().contains("…[observation shortened: "), t.content());
        assertEquals(1, out.shortenedObservations());
        assertEquals(in.get(1), out.messages().get(1), "the task is untouched while the turn can give");
    }

    @Test
    void belowTheMinimumTheResultIsTheMinimalContext() {
        List<Message> in = conversation(
                Message.assistant("a", List.of(call("a", "calculator", "1+1"))), Message.tool("a", "calculator", "2"));
        ContextCompressor c = new ContextCompressor(APPROX, 5);
        int min = c.minimumTokens(in);
        assertTrue(min > 5);
        CompressedContext out = c.fit(in);
        assertEquals(min, out.tokens());
        assertEquals(4, out.messages().size());
        for (Message m : out.messages()) assertEquals("", m.content());
        assertEquals(in.get(2).toolCalls(), out.messages().get(2).toolCalls());
    }

    @Test
    void rejectsNonsenseSettings() {
        assertThrows(IllegalArgumentException.class, () -> new ContextCompressor(APPROX, 0));
        assertThrows(IllegalArgumentException.class, () -> new ContextCompressor(null, 10));
    }

    @Test
    void emptyAndShortInputs() {
        ContextCompressor c = new ContextCompressor(APPROX, 10);
        assertEquals(0, c.fit(List.of()).tokens());
        CompressedContext one = c.fit(List.of(Message.system("z".repeat(1000))));
        assertTrue(one.tokens() <= 10);
        assertEquals(1, one.messages().size());
    }

    @Test
    void cutNeverSplitsASurrogatePair() {
        String s = "\uD83D\uDE00".repeat(10);
        String cut = ContextCompressor.cut(s, 5, "observation shortened");
        assertTrue(cut.startsWith("\uD83D\uDE00\uD83D\uDE00\n…[observation shortened: 4 of 20 characters kept]"), cut);
    }

    // ---------------------------------------------------------------- property test

    @Test
    void randomHistoriesNeverExceedTheBudgetAndStayWellFormed() {
        Random r = new Random(20240611L);
        int feasible = 0;
        int folded = 0;
        int shortenedOnly = 0;
        for (int i = 0; i < 4000; i++) {
            TokenCounter counter = i % 3 == 2 ? WORDS : APPROX;
            List<Message> in = randomConversation(r);
            int full = tokens(counter, in);
            int budget;
            switch (r.nextInt(4)) {
                case 0: budget = 1 + r.nextInt(60); break;                       // tiny
                case 1: budget = 1 + r.nextInt(400); break;                      // small
                case 2: budget = 1 + r.nextInt(Math.max(1, full)); break;        // anywhere below
                default: budget = Math.max(1, full - r.nextInt(Math.max(1, full / 10) + 1) + r.nextInt(20) - 10);
            }
            ContextCompressor c = new ContextCompressor(counter, budget);
            CompressedContext out = c.fit(in);
            String where = "case " + i + " budget " + budget + " full " + full;
            check(c, counter, in, out, where);
            if (out.tokens() <= budget) feasible++;
            if (out.foldedMessages() > 0) folded++;
            else if (out.shortenedObservations() > 0) shortenedOnly++;
            assertEquals(out, c.fit(in), "deterministic: " + where);
        }
        assertTrue(feasible > 3000, "most cases are feasible: " + feasible);
        assertTrue(folded > 500, "folding is exercised: " + folded);
        assertTrue(shortenedOnly > 100, "shortening alone is exercised: " + shortenedOnly);
    }

    private static void check(ContextCompressor c, TokenCounter counter, List<Message> in, CompressedContext out, String where) {
        List<Message> ms = out.messages();
        assertEquals(tokens(counter, ms), out.tokens(), "tokens are counted right: " + where);
        int min = c.minimumTokens(in);
        if (min <= c.budget()) assertTrue(out.tokens() <= c.budget(), "within budget: " + where + " got " + out.tokens());
        else assertEquals(min, out.tokens(), "minimal context when the budget cannot be met: " + where);
        if (!out.compressed()) {
            assertSame(in, ms, where);
            return;
        }
        // System first, task second, each the original or a head of it.
        assertEquals(Role.SYSTEM, ms.get(0).role(), where);
        assertDerived(in.get(0), ms.get(0), where);
        assertEquals(Role.USER, ms.get(1).role(), where);
        assertDerived(in.get(1), ms.get(1), where);
        // Then the summary, if any, then a suffix of the history.
        int next = 2;
        if (ms.size() > 2 && ms.get(2).content().startsWith("[Summary of earlier turns 1–")) {
            assertTrue(out.foldedMessages() > 0, where);
            next = 3;
        }
        int kept = ms.size() - next;
        assertEquals(in.size() - 2 - out.foldedMessages(), kept, "folded + kept = history: " + where);
        int shortened = 0;
        for (int j = 0; j < kept; j++) {
            Message o = in.get(in.size() - kept + j);
            Message m = ms.get(next + j);
            assertEquals(o.role(), m.role(), where);
            assertEquals(o.toolCalls(), m.toolCalls(), "tool calls are never altered: " + where);
            assertEquals(o.toolCallId(), m.toolCallId(), where);
            assertDerived(o, m, where);
            boolean observation = m.role() == Role.TOOL || m.role() == Role.USER;
            if (observation && !m.content().equals(o.content())) shortened++;
        }
        assertEquals(shortened, out.shortenedObservations(), where);
        // The last message is kept.
        assertEquals(in.get(in.size() - 1).role(), ms.get(ms.size() - 1).role(), where);
        if (in.size() > 2) assertTrue(kept > 0, "the last message stays: " + where);
        // No orphan tool message: each answers a call of the nearest assistant message before it.
        Set<String> open = new HashSet<>();
        for (Message m : ms) {
            if (m.role() == Role.ASSISTANT) {
                open.clear();
                for (ToolCall call : m.toolCalls()) open.add(call.id());
            } else if (m.role() == Role.TOOL) {
                assertTrue(open.contains(m.toolCallId()), "orphan tool message " + m.toolCallId() + ": " + where);
            }
        }
        // Shortening comes first: once turns are folded, every long older observation still kept is cut.
        if (out.foldedMessages() > 0) {
            int lastTurn = ms.size() - 1;
            while (lastTurn > next && ms.get(lastTurn).role() != Role.ASSISTANT) lastTurn--;
            for (int j = next; j < lastTurn; j++) {
                Message m = ms.get(j);
                Message o = in.get(in.size() - kept + (j - next));
                boolean observation = m.role() == Role.TOOL || m.role() == Role.USER;
                if (observation && o.content().length() > ContextCompressor.OBSERVATION_HEAD_CHARS + 80) {
                    assertTrue(m.content().contains("…[observation shortened: "), "older observation cut before folding: " + where);
                }
            }
        }
    }

    /** The content is the original, empty, or a head of the original followed by a marker. */
    private static void assertDerived(Message original, Message got, String where) {
        String g = got.content();
        if (g.equals(original.content()) || g.isEmpty()) return;
        int m = g.lastIndexOf("…[");
        assertTrue(m >= 0 && g.endsWith(" characters kept]"), "marked: " + where + ": " + g);
        String head = g.substring(0, m);
        if (head.endsWith("\n")) head = head.substring(0, head.length() - 1);
        assertTrue(original.content().startsWith(head), "a head of the original: " + where);
        assertNotNull(got.role());
    }

    private static List<Message> randomConversation(Random r) {
        List<Message> m = new ArrayList<>();
        m.add(Message.system(text(r, r.nextInt(10) == 0 ? 3000 : 300)));
        m.add(Message.user(text(r, r.nextInt(10) == 0 ? 4000 : 400)));
        int turns = r.nextInt(12);
        int id = 0;
        for (int t = 0; t < turns; t++) {
            switch (r.nextInt(4)) {
                case 0, 1 -> { // native tool calls and their tool messages
                    List<ToolCall> calls = new ArrayList<>();
                    for (int k = 1 + r.nextInt(3); k > 0; k--) calls.add(call("call_" + id++, "calc", text(r, 60)));
                    m.add(Message.assistant(r.nextBoolean() ? "" : text(r, 400), calls));
                    for (ToolCall call : calls) m.add(Message.tool(call.id(), call.name(), text(r, 3000)));
                    if (r.nextInt(5) == 0) m.add(Message.user("format feedback: " + text(r, 200)));
                }
                case 2 -> { // text format: the call in the text, the response as a user message
                    m.add(Message.assistant("<tool_call>" + text(r, 200) + "</tool_call>"));
                    m.add(Message.user("<tool_response>" + text(r, 3000) + "</tool_response>"));
                }
                default -> m.add(Message.assistant(text(r, 800)));
            }
        }
        return m;
    }

    private static final String[] WORD_LIST = {"alpha", "beta", "42", "(2+3)", "the", "result", "is", "\n", "é", "\uD83D\uDE00", "x"};

    private static String text(Random r, int maxLen) {
        int len = r.nextInt(4) == 0 ? 0 : r.nextInt(maxLen + 1);
        StringBuilder sb = new StringBuilder(len + 8);
        while (sb.length() < len) sb.append(WORD_LIST[r.nextInt(WORD_LIST.length)]).append(' ');
        return sb.toString();
    }
}
