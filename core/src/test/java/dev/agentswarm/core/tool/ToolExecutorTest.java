package dev.agentswarm.core.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.core.protocol.ToolStatus;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class ToolExecutorTest {

    private static final ToolContext CTX = new ToolContext("ep-1", 0, 0, "c1", 0);

    private static ObjectNode args(String key, String value) {
        return Json.object().put(key, value);
    }

    private static ToolSpec spec(String name) {
        ObjectNode s = Json.object().put("type", "object");
        s.putObject("properties");
        return new ToolSpec(name, name + " tool", s);
    }

    /** A tool whose stage comes from {@code body}, for shaping every kind of ending. */
    private static Tool tool(String name, Function<JsonNode, CompletionStage<String>> body) {
        ToolSpec spec = spec(name);
        return new Tool() {
            @Override
            public ToolSpec spec() {
                return spec;
            }

            @Override
            public CompletionStage<String> invoke(JsonNode arguments, ToolContext context) {
                return body.apply(arguments);
            }
        };
    }

    private static ToolResult run(ToolExecutor ex, ToolCall call, ToolContext ctx) {
        try {
            return ex.execute(call, ctx).toCompletableFuture().get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("the stage must complete normally", e);
        }
    }

    private static ToolExecutor executor(Tool... tools) {
        return new ToolExecutor(ToolRegistry.of(tools), 8000, 30_000);
    }

    @Test
    void okPath() {
        ToolExecutor ex = executor(new CalculatorTool(), new FinishTool());
        ToolResult r = run(ex, new ToolCall("c1", "calculator", args("expression", "(2 + 3) * 4")), CTX);
        assertEquals(new ToolResult("c1", "calculator", "20", ToolStatus.OK, false, r.durationNanos()), r);
        assertTrue(r.durationNanos() >= 0);
        ToolResult f = run(ex, new ToolCall("c2", "finish", args("answer", "42")), CTX);
        assertEquals("42", f.content());
        assertTrue(f.ok());
    }

    @Test
    void asyncOkPath() {
        ToolExecutor ex = executor(tool("slow", a -> CompletableFuture.supplyAsync(() -> "late",
                CompletableFuture.delayedExecutor(20, TimeUnit.MILLISECONDS))));
        ToolResult r = run(ex, new ToolCall("c1", "slow", Json.object()), CTX);
        assertEquals(ToolStatus.OK, r.status());
        assertEquals("late", r.content());
        assertTrue(r.durationNanos() >= TimeUnit.MILLISECONDS.toNanos(15), "duration " + r.durationNanos());
    }

    @Test
    void unknownToolNamesAvailableTools() {
        ToolExecutor ex = executor(new FinishTool(), new CalculatorTool());
        ToolResult r = run(ex, new ToolCall("c1", "search", args("q", "x")), CTX);
        assertEquals(ToolStatus.UNKNOWN_TOOL, r.status());
        assertEquals("unknown tool 'search'; available tools: calculator, finish", r.content());
        assertEquals("c1", r.callId());
        assertEquals("search", r.name());
        assertEquals(ToolStatus.UNKNOWN_TOOL, run(ex, new ToolCall("c1", null, Json.object()), CTX).status());
        ToolResult none = run(new ToolExecutor(ToolRegistry.of(), 100, 10), new ToolCall("c", "x", Json.object()), CTX);
        assertEquals("unknown tool 'x'; no tools are available", none.content());
    }

    @Test
    void argumentsMustBeAnObject() {
        ToolExecutor ex = executor(new CalculatorTool());
        ToolResult nul = run(ex, new ToolCall("c1", "calculator", null), CTX);
        assertEquals(ToolStatus.INVALID_ARGUMENTS, nul.status());
        assertTrue(nul.content().startsWith("tool 'calculator' expects a JSON object of arguments, got nothing"), nul.content());
        ToolResult str = run(ex, new ToolCall("c1", "calculator", Json.MAPPER.getNodeFactory().textNode("1+1")), CTX);
        assertEquals(ToolStatus.INVALID_ARGUMENTS, str.status());
        assertTrue(str.content().contains("got string \"1+1\""), str.content());
        assertTrue(str.content().contains("- expression: string, required"), str.content());
    }

    @Test
    void schemaViolationNamesTheFieldAndTheExpectedFields() {
        ToolExecutor ex = executor(new CalculatorTool());
        ToolResult r = run(ex, new ToolCall("c1", "calculator", Json.object().put("expr", "1+1")), CTX);
        assertEquals(ToolStatus.INVALID_ARGUMENTS, r.status());
        assertFalse(r.truncated());
        assertEquals("invalid arguments for tool 'calculator':\n"
                + "- arguments.expression: required field is missing\n"
                + "- arguments.expr: unexpected field; allowed fields: expression\n"
                + "expected arguments:\n"
                + "- expression: string, required — The arithmetic expression to evaluate, e.g. \"(2 + 3) * 4\" or \"2^10 / 3\".\n"
                + "(no other fields allowed)", r.content());
        ToolResult t = run(ex, new ToolCall("c1", "calculator", Json.object().put("expression", 3)), CTX);
        assertTrue(t.content().contains("- arguments.expression: expected string, got integer 3"), t.content());
    }

    /** A tool that checks its own arguments (a benchmark's, answering as the benchmark does) gets them as they came, also through a wrapper. */
    @Test
    void aToolThatChecksItsOwnArgumentsGetsThemUnchecked() {
        Tool strict = new CalculatorTool();
        Tool own = new ForwardingTool(strict) {
            @Override
            public boolean checksOwnArguments() {
                return true;
            }

            @Override
            public CompletionStage<String> invoke(JsonNode arguments, ToolContext context) {
                return CompletableFuture.completedFuture("Error: got " + arguments);
            }
        };
        Tool wrapped = new ForwardingTool(own) {};
        ToolResult r = run(executor(wrapped), new ToolCall("c1", "calculator", Json.object().put("expr", 1)), CTX);
        assertEquals(ToolStatus.OK, r.status());
        assertEquals("Error: got {\"expr\":1}", r.content());
        ToolResult notAnObject = run(executor(wrapped), new ToolCall("c1", "calculator", Json.MAPPER.getNodeFactory().textNode("1")), CTX);
        assertEquals(ToolStatus.INVALID_ARGUMENTS, notAnObject.status(), "arguments are still a JSON object");
    }

    @Test
    void timeoutCancelsTheToolsFuture() {
        CompletableFuture<String> never = new CompletableFuture<>();
        ToolExecutor ex = executor(tool("hang", a -> never));
        long t0 = System.nanoTime();
        ToolResult r = run(ex, new ToolCall("c1", "hang", Json.object()), new ToolContext("ep", 1, 0, "c1", 50));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertEquals(ToolStatus.TIMEOUT, r.status());
        assertEquals("tool 'hang' timed out after 50 ms", r.content());
        assertTrue(never.isCancelled(), "the tool's future is cancelled");
        assertTrue(ms >= 45 && ms < 3000, "took " + ms + " ms");
        assertTrue(r.durationNanos() >= TimeUnit.MILLISECONDS.toNanos(45));
    }

    @Test
    void aCallerThatGivesUpStopsTheTool() {
        CompletableFuture<String> never = new CompletableFuture<>();
        ToolExecutor ex = executor(tool("hang", a -> never));
        CompletableFuture<ToolResult> result = ex.execute(new ToolCall("c1", "hang", Json.object()),
                new ToolContext("ep", 1, 0, "c1", 60_000)).toCompletableFuture();
        assertFalse(never.isCancelled());
        result.cancel(true); // the episode was cancelled or hit its deadline
        assertTrue(never.isCancelled(), "the tool's own future is cancelled too");
    }

    @Test
    void defaultTimeoutAppliesWhenContextHasNone() {
        ToolExecutor ex = new ToolExecutor(ToolRegistry.of(tool("hang", a -> new CompletableFuture<>())), 100, 30);
        ToolResult r = run(ex, new ToolCall("c1", "hang", Json.object()), CTX);
        assertEquals("tool 'hang' timed out after 30 ms", r.content());
        ToolResult r2 = run(ex, new ToolCall("c1", "hang", Json.object()), null);
        assertEquals(ToolStatus.TIMEOUT, r2.status());
    }

    @Test
    void synchronousThrowIsAnError() {
        ToolExecutor ex = executor(tool("boom", a -> {
            throw new IllegalStateException("disk on fire");
        }));
        ToolResult r = run(ex, new ToolCall("c1", "boom", Json.object()), CTX);
        assertEquals(ToolStatus.ERROR, r.status());
        assertEquals("disk on fire", r.content());
    }

    @Test
    void asyncFailureIsUnwrapped() {
        ToolExecutor ex = executor(
                tool("fails", a -> CompletableFuture.supplyAsync(() -> {
                    throw new IllegalArgumentException("bad input");
                })),
                tool("wrapped", a -> CompletableFuture.failedFuture(new CompletionException(new RuntimeException("inner")))),
                tool("nomsg", a -> CompletableFuture.failedFuture(new NullPointerException())));
        assertEquals(new ToolResultShape(ToolStatus.ERROR, "bad input"), shape(run(ex, new ToolCall("c", "fails", Json.object()), CTX)));
        assertEquals(new ToolResultShape(ToolStatus.ERROR, "inner"), shape(run(ex, new ToolCall("c", "wrapped", Json.object()), CTX)));
        assertEquals(new ToolResultShape(ToolStatus.ERROR, "NullPointerException"), shape(run(ex, new ToolCall("c", "nomsg", Json.object()), CTX)));
    }

    @Test
    void calculatorErrorsReachTheModel() {
        ToolResult r = run(executor(new CalculatorTool()), new ToolCall("c", "calculator", args("expression", "1/0")), CTX);
        assertEquals(ToolStatus.ERROR, r.status());
        assertTrue(r.content().startsWith("division by zero"), r.content());
    }

    @Test
    void nullResultAndNullStageAreErrors() {
        ToolExecutor ex = executor(tool("nothing", a -> CompletableFuture.completedFuture(null)), tool("nostage", a -> null),
                tool("latenull", a -> CompletableFuture.supplyAsync(() -> null)));
        assertEquals(new ToolResultShape(ToolStatus.ERROR, "tool 'nothing' returned no result (null)"),
                shape(run(ex, new ToolCall("c", "nothing", Json.object()), CTX)));
        assertEquals(new ToolResultShape(ToolStatus.ERROR, "tool 'nostage' returned no result"),
                shape(run(ex, new ToolCall("c", "nostage", Json.object()), CTX)));
        assertEquals(new ToolResultShape(ToolStatus.ERROR, "tool 'latenull' returned no result (null)"),
                shape(run(ex, new ToolCall("c", "latenull", Json.object()), CTX)));
    }

    @Test
    void cancelledToolIsReportedAsCancelled() {
        CompletableFuture<String> f = new CompletableFuture<>();
        f.cancel(false);
        ToolResult r = run(executor(tool("gone", a -> f)), new ToolCall("c", "gone", Json.object()), CTX);
        assertEquals(new ToolResultShape(ToolStatus.CANCELLED, "tool 'gone' was cancelled"), shape(r));
    }

    @Test
    void toolsGetAContextEvenWhenTheCallerHasNone() {
        AtomicReference<ToolContext> seen = new AtomicReference<>();
        ToolExecutor ex = new ToolExecutor(ToolRegistry.of(new Tool() {
            @Override
            public ToolSpec spec() {
                return ToolExecutorTest.spec("ctx");
            }

            @Override
            public CompletionStage<String> invoke(JsonNode arguments, ToolContext context) {
                seen.set(context);
                return CompletableFuture.completedFuture("ok");
            }
        }), 100, 1234);
        run(ex, new ToolCall("call-9", "ctx", Json.object()), null);
        assertEquals(new ToolContext("", 0, 0, "call-9", 1234), seen.get());
        ToolContext given = new ToolContext("ep", 3, 1, "call-9", 0);
        run(ex, new ToolCall("call-9", "ctx", Json.object()), given);
        assertSame(given, seen.get());
    }

    @Test
    void nullCallIsAnError() {
        ToolResult r = run(executor(), null, CTX);
        assertEquals(ToolStatus.ERROR, r.status());
    }

    @Test
    void truncationKeepsHeadMarkerAndTailWithinTheCap() {
        String big = "h".repeat(15_000) + "t".repeat(5_345);
        ToolExecutor ex = new ToolExecutor(ToolRegistry.of(tool("big", a -> CompletableFuture.completedFuture(big))), 8000, 1000);
        ToolResult r = run(ex, new ToolCall("c", "big", Json.object()), CTX);
        assertEquals(ToolStatus.OK, r.status());
        assertTrue(r.truncated());
        assertEquals(8000, r.content().length(), "the cap is used fully, never exceeded");
        // 8000 = head + marker (39 characters here) + newline + 400 tail characters.
        int head = 8000 - 39 - 1 - 400;
        assertEquals("h".repeat(head) + "\n…[truncated " + (20_345 - head - 400) + " of 20345 characters]\n" + "t".repeat(400),
                r.content());
        ToolResult small = run(ex, new ToolCall("c", "big", Json.object()), CTX);
        assertEquals(r.content(), small.content(), "deterministic");
    }

    @Test
    void truncationIsExactForEverySize() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 30_000; i++) sb.append((char) ('a' + i % 26));
        String src = sb.toString();
        for (int max = ToolExecutor.MIN_RESULT_CHARS; max <= 1500; max += 7) {
            for (int len : new int[] {max - 1, max, max + 1, max + 9, max + 90, max + 900, 10_000, 30_000}) {
                if (len < 0 || len > src.length()) continue;
                String s = src.substring(0, len);
                String t = ToolExecutor.truncate(s, max);
                assertTrue(t.length() <= max, "len " + len + " max " + max + " -> " + t.length());
                if (len <= max) {
                    assertEquals(s, t);
                    continue;
                }
                int m = t.indexOf("\n…[truncated ");
                assertTrue(m >= 0, t);
                int end = t.indexOf(" characters]", m);
                String[] nums = t.substring(m + "\n…[truncated ".length(), end).split(" of ");
                int removed = Integer.parseInt(nums[0]);
                assertEquals(len, Integer.parseInt(nums[1]));
                String head = t.substring(0, m);
                String rest = t.substring(end + " characters]".length());
                String tail = rest.isEmpty() ? "" : rest.substring(1);
                assertEquals(len, head.length() + tail.length() + removed, "the numbers add up");
                assertEquals(s.substring(0, head.length()), head);
                assertEquals(s.substring(len - tail.length()), tail);
                assertTrue(t.length() >= max - 2, "uses the room: " + t.length() + " of " + max);
            }
        }
    }

    @Test
    void truncationNeverSplitsSurrogatePairs() {
        String emoji = "\uD83D\uDE00";
        String s = emoji.repeat(5000);
        for (int max = 64; max < 600; max++) {
            String t = ToolExecutor.truncate(s, max);
            assertTrue(t.length() <= max);
            for (int i = 0; i < t.length(); i++) {
                char c = t.charAt(i);
                if (Character.isHighSurrogate(c)) assertTrue(i + 1 < t.length() && Character.isLowSurrogate(t.charAt(i + 1)));
                if (Character.isLowSurrogate(c)) assertTrue(i > 0 && Character.isHighSurrogate(t.charAt(i - 1)));
            }
        }
    }

    @Test
    void errorContentIsCappedToo() {
        String huge = "e".repeat(5000);
        ToolExecutor ex = new ToolExecutor(ToolRegistry.of(tool("err", a -> CompletableFuture.failedFuture(new RuntimeException(huge)))), 100, 1000);
        ToolResult r = run(ex, new ToolCall("c", "err", Json.object()), CTX);
        assertEquals(ToolStatus.ERROR, r.status());
        assertTrue(r.content().length() <= 100);
        assertTrue(r.truncated());
    }

    @Test
    void constructorRejectsNonsense() {
        assertThrows(IllegalArgumentException.class, () -> new ToolExecutor(ToolRegistry.of(), 10, 100));
        assertThrows(IllegalArgumentException.class, () -> new ToolExecutor(ToolRegistry.of(), 100, 0));
        assertThrows(IllegalArgumentException.class, () -> new ToolExecutor(null, 100, 100));
    }

    @Test
    void stageNeverFailsEvenWhenCallersChainOnIt() {
        AtomicReference<Throwable> seen = new AtomicReference<>();
        ToolExecutor ex = executor(tool("boom", a -> {
            throw new StackOverflowError();
        }));
        ex.execute(new ToolCall("c", "boom", Json.object()), CTX).whenComplete((r, e) -> seen.set(e));
        assertEquals(null, seen.get());
    }

    @Test
    void manyFastCallsAreCheap() {
        ToolExecutor ex = executor(new CalculatorTool());
        ToolCall call = new ToolCall("c", "calculator", args("expression", "2^10 + 3*4 - 1/8"));
        for (int i = 0; i < 200_000; i++) {
            ToolResult r = ex.execute(call, CTX).toCompletableFuture().join();
            if (!r.ok()) throw new AssertionError(r);
        }
    }

    private record ToolResultShape(ToolStatus status, String content) {}

    private static ToolResultShape shape(ToolResult r) {
        return new ToolResultShape(r.status(), r.content());
    }
}
