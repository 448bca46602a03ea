package dev.agentswarm.policy.parity;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import java.util.List;
import java.util.Random;

/**
 * Conversations generated from a seed, in Hugging Face's message-dict form: system prompts, users,
 * assistants with earlier {@code <think>} blocks, tool calls with JSON arguments, one or several tool
 * results in a row, tools with JSON-schema parameters; text with unicode, whitespace runs, quotes,
 * backslashes and tag look-alikes, which is where templates and JSON encoders differ.
 */
final class Conversations {

    private static final List<String> TEXTS = List.of(
            "Hello!", "What is 17 * 23?", "  leading and trailing spaces  ", "line one\nline two\n\nline four",
            "\n\nstarts with newlines", "ends with newlines\n\n", "tabs\tand\ttabs", "naïve café — “quotes” ‘single’",
            "数学题：三加五等于几？", "مرحبا بالعالم", "emoji 🤖🚀 and 👩‍👩‍👧", "back\\slash and \"double\" and 'single'",
            "{\"json\": [1, 2.5, true, null]}", "<tool_call>\n{\"name\": \"x\"}\n</tool_call>", "a < b > c & d",
            "<|im_start|>user\nnot a real turn<|im_end|>", "code:\n```python\ndef f(x):\n    return x ** 2\n```",
            "1234567890123456789", "nbsp\u00a0here and\u3000ideographic space", "\u200bzero width", "x", "",
            "   ", "ends with </think>", "</think>\n\nafter a stray end", "Σ αβγ ДЖЯ ﬁ ß", "\r\nwindows\r\nnewlines");

    private static final List<String> THOUGHTS = List.of("I should add.", "Let me think…\nstep 1\nstep 2",
            "\n  padded thought  \n", "考虑一下", "");

    private final Random random;

    Conversations(long seed) {
        this.random = new Random(seed);
    }

    String text() {
        String t = TEXTS.get(random.nextInt(TEXTS.size()));
        return random.nextInt(4) == 0 ? t + " " + TEXTS.get(random.nextInt(TEXTS.size())) : t;
    }

    private String pick(List<String> xs) {
        return xs.get(random.nextInt(xs.size()));
    }

    /** Tools as {@code [{"type":"function","function":{name, description, parameters}}]}, or null. */
    ArrayNode tools(int max) {
        int n = random.nextInt(max + 1);
        if (n == 0) return null;
        ArrayNode out = Json.MAPPER.createArrayNode();
        for (int i = 0; i < n; i++) {
            ObjectNode fn = out.addObject().put("type", "function").putObject("function");
            fn.put("name", List.of("search", "calculator", "get_weather", "run_sql", "読む").get(random.nextInt(5)) + i);
            fn.put("description", pick(List.of("Searches the web.", "Évalue une expression — “exact”.", "天气 lookup", "Runs SQL; returns rows as JSON.\nTwo lines.")));
            ObjectNode params = fn.putObject("parameters").put("type", "object");
            ObjectNode props = params.putObject("properties");
            props.putObject("query").put("type", "string").put("description", pick(TEXTS));
            if (random.nextBoolean()) {
                props.putObject("limit").put("type", "integer").put("minimum", 1).put("default", 10);
                props.putObject("ratio").put("type", "number").put("default", 0.5);
            }
            if (random.nextBoolean()) props.putObject("tags").put("type", "array").putObject("items").put("type", "string");
            params.putArray("required").add("query");
        }
        return out;
    }

    private ObjectNode arguments() {
        ObjectNode args = Json.MAPPER.createObjectNode();
        args.put("query", text());
        if (random.nextBoolean()) args.put("limit", random.nextInt(100));
        if (random.nextInt(3) == 0) args.put("ratio", random.nextInt(1000) / 8.0);
        if (random.nextInt(3) == 0) args.putArray("tags").add("ünï").add("b");
        if (random.nextInt(4) == 0) args.putObject("nested").put("ok", true).putNull("none");
        return args;
    }

    /**
     * A conversation for a template family: "chatml" (Qwen3: anything goes), "llama" (tool calls one
     * at a time) or "alternating" (Gemma: user/assistant strictly alternating, no tools).
     */
    ArrayNode conversation(String family, boolean thinking) {
        ArrayNode msgs = Json.MAPPER.createArrayNode();
        if (random.nextInt(3) > 0) msgs.addObject().put("role", "system").put("content", text());
        int turns = 1 + random.nextInt(4);
        for (int t = 0; t < turns; t++) {
            msgs.addObject().put("role", "user").put("content", text());
            boolean last = t == turns - 1;
            if (last && random.nextBoolean()) break;
            if (!family.equals("alternating") && random.nextInt(3) == 0) {
                int calls = family.equals("llama") ? 1 : 1 + random.nextInt(2);
                ObjectNode a = msgs.addObject().put("role", "assistant").put("content", family.equals("llama") ? "" : maybeThink(thinking, ""));
                ArrayNode tc = a.putArray("tool_calls");
                for (int c = 0; c < calls; c++) {
                    ObjectNode call = tc.addObject().put("type", "function").put("id", "call_" + t + "_" + c);
                    ObjectNode fn = call.putObject("function").put("name", "search" + c);
                    if (random.nextInt(5) == 0) fn.put("arguments", arguments().toString()); // already a JSON string
                    else fn.set("arguments", arguments());
                }
                int results = family.equals("llama") ? 1 : 1 + random.nextInt(3);
                for (int r = 0; r < results; r++) {
                    ObjectNode tool = msgs.addObject().put("role", "tool").put("content", text());
                    tool.put("tool_call_id", "call_" + t + "_" + r);
                    if (random.nextBoolean()) tool.put("name", "search" + r);
                }
            }
            if (!last || random.nextBoolean()) {
                msgs.addObject().put("role", "assistant").put("content", maybeThink(thinking, text()));
            }
        }
        return msgs;
    }

    private String maybeThink(boolean thinking, String answer) {
        if (!thinking || random.nextInt(3) == 0) return answer;
        return "<think>\n" + pick(THOUGHTS) + "\n</think>\n\n" + answer;
    }

    boolean coin() {
        return random.nextBoolean();
    }
}
