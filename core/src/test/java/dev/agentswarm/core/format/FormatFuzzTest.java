package dev.agentswarm.core.format;

import static dev.agentswarm.core.format.FormatTestSupport.TOOLS;
import static dev.agentswarm.core.format.FormatTestSupport.json;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.ToolCall;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Feeds random, mutated, deeply nested and huge completions to every format and checks the
 * contract of {@link ToolCallFormat#parse}: it never throws, never returns nulls, and a completion
 * that yields neither a final answer nor a call always explains itself in {@code errors}. The
 * seed is fixed, so a failure names a case that replays exactly.
 */
class FormatFuzzTest {

    private static final long SEED = 0x5EEDF0E7L;
    private static final int CASES = 100_000;
    /** No single completion may take this long: the symptom of quadratic scanning or backtracking. */
    private static final long SLOW_NANOS = 2_000_000_000L;

    private static final List<String> TOKENS = List.of(
            "<think>", "</think>", "<tool_call>", "</tool_call>", "<tool_response>", "{", "}", "[", "]", "\"", "\\",
            ":", ",", "\n", " ", "\t", "\r\n", "```", "```json\n", "Thought:", "Action:", "Action Input:",
            "Final Answer:", "Observation:", "Action 1:", "Action 1 Input 1:", "\"name\"", "\"arguments\"",
            "\"parameters\"", "\"plugins\"", "\"pluginId\"", "\"dependencies\"", "\"function\"", "get_weather", "search",
            "now", "transfer", "null", "true", "false", "0", "-1.5e308", "1e99999", "\"\\u0000\"", "\"\\uD800\"", "é",
            "\uD83D\uDE00", "\u0000", "\uD800", "\uDFFF", "NaN", "'", "{}", "[]", "\"\"",
            "{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}}", "{\"pluginId\": \"a\", \"dependencies\": [\"a\"]}",
            "{\"plugins\": [", "\"arguments\": \"{\\\"q\\\": 1}\"");

    private static final List<String> VALID = List.of(
            "<think>\nThe user wants the weather.\n</think>\n\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
            "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"search\", \"arguments\": \"{\\\"query\\\": \\\"time\\\"}\"}\n</tool_call>",
            "<think>done</think>\nIt is 21 °C in Paris.",
            "Thought: I need the weather.\nAction: get_weather\nAction Input: {\"city\": \"Paris\", \"unit\": \"celsius\"}\n",
            "Thought: search it\nAction: search\nAction Input: pekko cluster sharding\nObservation: fake\nFinal Answer: x",
            "Thought: I now know the final answer\nFinal Answer: 42",
            "<think>First the exercise plugin, then nutrition.</think>\n{\"plugins\": [{\"pluginId\": \"p1\", \"name\": \"Ex\", "
                    + "\"description\": \"d\", \"identifier\": \"rest_api\", \"method\": \"POST\", \"api_request_parameters\": "
                    + "{\"video_url\": \"https://v.example.org/a.mp4\"}, \"all_parameters_hydrated\": true, \"dependencies\": []}, "
                    + "{\"pluginId\": \"p2\", \"api_request_parameters\": {}, \"all_parameters_hydrated\": true, \"dependencies\": [\"p1\"]}]}",
            "Here is the plan:\n```json\n{\"plugins\": [{\"pluginId\": \"a\", \"dependencies\": []}]}\n```",
            "The answer is 4.",
            "");

    /** The characters that matter to the parsers. */
    private static final String PUNCT = "{}[]\":,\\<>/\n x0";

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    @Test
    void everyFormatSurvivesRandomAndMutatedCompletions() {
        SplittableRandom rnd = new SplittableRandom(SEED);
        List<ToolCallFormat> formats = ToolCallFormats.all();
        Stats[] stats = new Stats[formats.size()];
        for (int f = 0; f < stats.length; f++) stats[f] = new Stats();
        // class loading and the first JIT passes are not what the slowness check is about
        for (ToolCallFormat f : formats) for (String v : VALID) f.parse(completion(v, List.of(), FinishReason.STOP), TOOLS);
        long start = System.nanoTime();
        long slowest = 0;
        String slowestCase = "";
        for (int i = 0; i < CASES; i++) {
            Completion c = generate(rnd, i);
            for (int f = 0; f < formats.size(); f++) {
                long t0 = System.nanoTime();
                check(formats.get(f), c, i, stats[f], i % 50 == 0);
                long took = System.nanoTime() - t0;
                stats[f].nanos += took;
                if (took > slowest) {
                    slowest = took;
                    slowestCase = "case " + i + " (" + formats.get(f).name() + ", " + c.text().length() + " chars)";
                }
            }
        }
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        StringBuilder report = new StringBuilder("fuzz: " + CASES + " completions x " + formats.size() + " formats in "
                + elapsedMs + " ms; slowest parse " + slowest / 1_000_000 + " ms at " + slowestCase);
        for (int f = 0; f < formats.size(); f++) report.append("\n  ").append(formats.get(f).name()).append(": ").append(stats[f]);
        System.out.println(report);

        assertTrue(slowest < SLOW_NANOS, "one completion took " + slowest / 1_000_000 + " ms: " + slowestCase);
        // the generator must reach the success paths too, or the property above says little
        for (int f = 0; f < formats.size(); f++) {
            Stats s = stats[f];
            assertTrue(s.errors > 0, formats.get(f).name() + " never reported an error: " + s);
            if (formats.get(f) instanceof JsonPlanFormat) {
                assertTrue(s.finals > 100 && s.plans > s.finals, "json-plan: " + s);
            } else {
                assertTrue(s.calls > 100, formats.get(f).name() + ": " + s);
                assertTrue(s.finals > 100, formats.get(f).name() + ": " + s);
            }
        }
    }

    private static final class Stats {
        int finals;
        int calls;
        int errors;
        int plans;
        long nanos;

        @Override
        public String toString() {
            return finals + " final answers, " + calls + " with calls, " + errors + " with errors, " + plans + " plans, "
                    + nanos / 1_000_000 + " ms";
        }
    }

    private static void check(ToolCallFormat format, Completion c, int i, Stats stats, boolean checkDeterminism) {
        ParsedCompletion p;
        try {
            p = format.parse(c, TOOLS);
        } catch (Throwable t) {
            throw new AssertionError(where(format, c, i) + " threw", t);
        }
        if (p == null) fail(where(format, c, i) + " returned null");
        if (p.thought() == null || p.toolCalls() == null || p.errors() == null) fail(where(format, c, i) + " has nulls: " + p);
        for (String e : p.errors()) {
            if (e == null || e.isBlank()) fail(where(format, c, i) + " has a blank error: " + p.errors());
            if (e.startsWith(FormatSupport.INTERNAL_ERROR_PREFIX)) fail(where(format, c, i) + " failed inside: " + e);
        }
        boolean answered = p.finalAnswer() != null;
        boolean called = !p.toolCalls().isEmpty();
        if (!answered && !called && p.errors().isEmpty()) {
            fail(where(format, c, i) + " has no answer, no call and no error: " + p);
        }
        if (answered && (called || !p.errors().isEmpty() || p.finalAnswer().isBlank())) {
            fail(where(format, c, i) + " claims a final answer next to calls or errors: " + p);
        }
        Set<String> ids = new HashSet<>();
        for (ToolCall call : p.toolCalls()) {
            if (call.id() == null || call.id().isBlank() || !ids.add(call.id())) fail(where(format, c, i) + " bad call id: " + p);
            if (call.name() == null || call.name().isBlank()) fail(where(format, c, i) + " blank call name: " + p);
            if (call.arguments() == null || !call.arguments().isObject()) fail(where(format, c, i) + " arguments not an object: " + p);
        }
        if (format instanceof JsonPlanFormat) {
            if (called) fail(where(format, c, i) + " a plan has no tool calls: " + p);
            if (answered && p.plan() == null) fail(where(format, c, i) + " answer without plan: " + p);
        } else if (p.plan() != null) {
            fail(where(format, c, i) + " only plans have a plan: " + p);
        }
        if (format instanceof ReActFormat && p.toolCalls().size() > 1) fail(where(format, c, i) + " ReAct makes one call per turn");

        Message m = format.assistantMessage(c, p);
        if (m == null) fail(where(format, c, i) + " null assistant message");
        if (p.hasErrors() && format.formatFeedback(p.errors()) == null) fail(where(format, c, i) + " null feedback");
        if (checkDeterminism && !p.equals(format.parse(c, TOOLS))) fail(where(format, c, i) + " parses differently twice");

        if (answered) stats.finals++;
        if (called) stats.calls++;
        if (p.hasErrors()) stats.errors++;
        if (p.plan() != null) stats.plans++;
    }

    private static String where(ToolCallFormat format, Completion c, int i) {
        String t = c.text();
        String shown = t.length() > 400 ? t.substring(0, 400) + "…(" + t.length() + " chars)" : t;
        return "case " + i + " (" + format.name() + ", seed " + SEED + ") on text [" + shown + "] calls " + c.toolCalls();
    }

    // ---- generators ----

    private static Completion generate(SplittableRandom rnd, int i) {
        FinishReason finish = rnd.nextInt(10) == 0 ? FinishReason.LENGTH : FinishReason.STOP;
        // a few huge completions, spread over the run
        if (i % 2000 == 1999) return completion(huge(rnd), List.of(), finish);
        int kind = rnd.nextInt(100);
        String text;
        if (kind < 15) text = randomUnicode(rnd, rnd.nextInt(300));
        else if (kind < 35) text = tokenSoup(rnd);
        else if (kind < 75) text = mutate(rnd, VALID.get(rnd.nextInt(VALID.size())));
        else if (kind < 85) text = VALID.get(rnd.nextInt(VALID.size()));
        else if (kind < 90) text = deepNesting(rnd);
        else text = mutate(rnd, VALID.get(rnd.nextInt(VALID.size())));
        List<ToolCall> calls = kind >= 90 ? nativeCalls(rnd) : List.of();
        return completion(text, calls, finish);
    }

    private static Completion completion(String text, List<ToolCall> calls, FinishReason finish) {
        return new Completion(text, calls, null, null, finish, 0, 0, 0);
    }

    private static String randomUnicode(SplittableRandom rnd, int length) {
        StringBuilder sb = new StringBuilder(length);
        for (int k = 0; k < length; k++) {
            int r = rnd.nextInt(100);
            if (r < 40) sb.append((char) rnd.nextInt(0x20, 0x7F));
            else if (r < 50) sb.append((char) rnd.nextInt(0, 0x20));
            else if (r < 70) sb.append((char) rnd.nextInt(0x80, 0x10000)); // lone surrogates included
            else if (r < 80) sb.appendCodePoint(rnd.nextInt(0x10000, 0x110000));
            else sb.append(PUNCT.charAt(rnd.nextInt(PUNCT.length())));
        }
        return sb.toString();
    }

    private static String fragment(SplittableRandom rnd) {
        int r = rnd.nextInt(10);
        if (r < 7) return TOKENS.get(rnd.nextInt(TOKENS.size()));
        if (r < 9) return randomUnicode(rnd, rnd.nextInt(1, 12));
        String v = VALID.get(rnd.nextInt(VALID.size()));
        if (v.isEmpty()) return v;
        int a = rnd.nextInt(v.length());
        return v.substring(a, Math.min(v.length(), a + rnd.nextInt(1, 60)));
    }

    private static String tokenSoup(SplittableRandom rnd) {
        StringBuilder sb = new StringBuilder();
        int n = rnd.nextInt(80);
        for (int k = 0; k < n; k++) sb.append(fragment(rnd));
        return sb.toString();
    }

    private static String mutate(SplittableRandom rnd, String base) {
        StringBuilder sb = new StringBuilder(base);
        int n = rnd.nextInt(1, 7);
        for (int k = 0; k < n; k++) {
            int len = sb.length();
            switch (rnd.nextInt(6)) {
                case 0 -> sb.setLength(len == 0 ? 0 : rnd.nextInt(len)); // truncation
                case 1 -> sb.insert(len == 0 ? 0 : rnd.nextInt(len + 1), fragment(rnd));
                case 2 -> {
                    if (len > 0) {
                        int a = rnd.nextInt(len);
                        sb.delete(a, Math.min(len, a + rnd.nextInt(1, 20)));
                    }
                }
                case 3 -> {
                    if (len > 0) {
                        int a = rnd.nextInt(len);
                        String dup = sb.substring(a, Math.min(len, a + rnd.nextInt(1, 50)));
                        sb.insert(rnd.nextInt(sb.length() + 1), dup);
                    }
                }
                case 4 -> {
                    if (len > 0) sb.setCharAt(rnd.nextInt(len), PUNCT.charAt(rnd.nextInt(PUNCT.length())));
                }
                default -> sb.insert(len == 0 ? 0 : rnd.nextInt(len + 1),
                        TOKENS.get(rnd.nextInt(6)) + randomUnicode(rnd, rnd.nextInt(5)));
            }
        }
        return sb.toString();
    }

    private static String nest(SplittableRandom rnd) {
        int depth = rnd.nextInt(1, 5000);
        boolean closed = rnd.nextBoolean();
        if (rnd.nextBoolean()) {
            return "[".repeat(depth) + "1" + (closed ? "]".repeat(depth) : "");
        }
        return "{\"a\":".repeat(depth) + "1" + (closed ? "}".repeat(depth) : "");
    }

    private static String deepNesting(SplittableRandom rnd) {
        String n = nest(rnd);
        return switch (rnd.nextInt(5)) {
            case 0 -> "<tool_call>{\"name\": \"search\", \"arguments\": " + n + "}</tool_call>";
            case 1 -> "Action: search\nAction Input: " + n;
            case 2 -> "{\"plugins\": [{\"pluginId\": \"a\", \"api_request_parameters\": " + n + "}]}";
            case 3 -> "<tool_call>" + n + "</tool_call>";
            default -> n;
        };
    }

    private static String huge(SplittableRandom rnd) {
        int n = rnd.nextInt(100_000, 600_000);
        return switch (rnd.nextInt(6)) {
            case 0 -> "<tool_call>{\"name\": \"search\", \"arguments\": {\"query\": \"" + "x".repeat(n) + "\"}}</tool_call>";
            case 1 -> "Final Answer: " + randomUnicode(rnd, n);
            case 2 -> "{\"plugins\": [" + "{\"pluginId\": \"p\", \"dependencies\": [\"p\"]},".repeat(n / 45) + "{}]}";
            case 3 -> "Thought: x\n".repeat(n / 11) + "Action: search\nAction Input: " + "q".repeat(n);
            default -> {
                String t = TOKENS.get(rnd.nextInt(TOKENS.size()));
                yield t.repeat(Math.max(1, n / Math.max(1, t.length())));
            }
        };
    }

    private static List<ToolCall> nativeCalls(SplittableRandom rnd) {
        int n = rnd.nextInt(5);
        List<ToolCall> calls = new ArrayList<>(n);
        for (int k = 0; k < n; k++) {
            String id = switch (rnd.nextInt(5)) {
                case 0 -> null;
                case 1 -> "";
                case 2 -> "call_0";
                default -> "call_" + Integer.toHexString(rnd.nextInt());
            };
            String name = switch (rnd.nextInt(6)) {
                case 0 -> null;
                case 1 -> " ";
                case 2 -> randomUnicode(rnd, rnd.nextInt(1, 10));
                default -> TOOLS.get(rnd.nextInt(TOOLS.size())).name();
            };
            JsonNode args = switch (rnd.nextInt(9)) {
                case 0 -> null;
                case 1 -> NullNode.getInstance();
                case 2 -> TextNode.valueOf("{\"query\": \"x\", \"n\": " + rnd.nextInt() + "}");
                case 3 -> TextNode.valueOf(mutate(rnd, "{\"city\": \"Paris\", \"unit\": \"celsius\"}"));
                case 4 -> TextNode.valueOf(randomUnicode(rnd, rnd.nextInt(40)));
                case 5 -> IntNode.valueOf(rnd.nextInt());
                case 6 -> NODES.arrayNode().add(1).add("x");
                case 7 -> TextNode.valueOf(nest(rnd));
                default -> json("{\"city\": \"Oslo\"}");
            };
            calls.add(new ToolCall(id, name, args));
        }
        return calls;
    }
}
