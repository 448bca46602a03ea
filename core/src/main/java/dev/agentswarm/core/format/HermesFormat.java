package dev.agentswarm.core.format;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.ToolSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The Hermes / Qwen3 text protocol: tools listed in the system prompt inside {@code <tools>},
 * calls written as JSON objects inside {@code <tool_call>…</tool_call>}, results fed back in one
 * user message of {@code <tool_response>} blocks (§4.2 of the research notes). Parsing follows
 * vLLM's {@code hermes} parser (an unterminated final block is accepted) but reports every
 * problem instead of silently turning the whole text into content.
 */
public final class HermesFormat implements ToolCallFormat {

    public static final String NAME = "hermes";

    static final String OPEN = "<tool_call>";
    static final String CLOSE = "</tool_call>";

    /** The call form exactly as the system prompt teaches it; errors repeat it. */
    static final String CALL_FORM = OPEN + "\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n" + CLOSE;

    /**
     * No turn needs more parallel calls; the cap keeps a degenerate completion (thousands of
     * blocks) from costing thousands of JSON parses.
     */
    static final int MAX_BLOCKS = 64;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String toolsPrompt(List<ToolSpec> tools) {
        if (tools == null || tools.isEmpty()) return "";
        StringBuilder sb = new StringBuilder();
        sb.append("# Tools\n\n")
                .append("You may call one or more functions to assist with the user query.\n\n")
                .append("You are provided with function signatures within <tools></tools> XML tags:\n")
                .append("<tools>\n");
        for (ToolSpec t : tools) {
            if (t == null) continue;
            ObjectNode fn = Json.object();
            fn.put("name", Objects.toString(t.name(), ""));
            fn.put("description", Objects.toString(t.description(), ""));
            fn.set("parameters", FormatSupport.parametersOf(t));
            ObjectNode entry = Json.object();
            entry.put("type", "function");
            entry.set("function", fn);
            sb.append(FormatSupport.pyJson(entry)).append('\n');
        }
        sb.append("</tools>\n\n")
                .append("For each function call, return a json object with function name and arguments within "
                        + "<tool_call></tool_call> XML tags:\n")
                .append(CALL_FORM);
        return sb.toString();
    }

    @Override
    public ParsedCompletion parse(Completion completion, List<ToolSpec> tools) {
        return FormatSupport.guarded(completion, () -> read(completion.text(), completion.finishReason()));
    }

    private ParsedCompletion read(String text, FinishReason finish) {
        boolean cutOff = finish == FinishReason.LENGTH;
        FormatSupport.ThinkSplit ts = FormatSupport.splitThink(text, OPEN);
        String body = ts.rest();
        List<ToolCall> calls = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        List<String> outside = new ArrayList<>();

        int pos = 0;
        int blocks = 0;
        // cached index of the next closing tag at or after the current block; -1 once none is left,
        // so text with many openings and no closing stays linear
        int close = -2;
        while (true) {
            int open = body.indexOf(OPEN, pos);
            String before = open < 0 ? body.substring(pos) : body.substring(pos, open);
            checkStray(before, errors);
            outside.add(before);
            if (open < 0) break;
            if (blocks == MAX_BLOCKS) {
                errors.add("more than " + MAX_BLOCKS + " <tool_call> blocks in one message; make at most "
                        + MAX_BLOCKS + " calls per turn (the rest were ignored)");
                break;
            }
            blocks++;
            int start = open + OPEN.length();
            if (close != -1 && close < start) close = body.indexOf(CLOSE, start);
            int next = body.indexOf(OPEN, start);
            String content;
            boolean terminated;
            if (close >= 0 && (next < 0 || close < next)) {
                content = body.substring(start, close);
                pos = close + CLOSE.length();
                terminated = true;
            } else if (next >= 0) {
                // a block left open before the next one: it ends where the next begins
                content = body.substring(start, next);
                pos = next;
                terminated = false;
            } else {
                // unterminated final block, as vLLM's `<tool_call>(.*)` alternative accepts
                content = body.substring(start);
                pos = body.length();
                terminated = false;
            }
            readBlock(content, blocks, terminated, cutOff, calls, errors);
        }

        String prose = FormatSupport.joinParts(outside);
        String thought = FormatSupport.joinParts(List.of(ts.think(), prose));
        if (!calls.isEmpty() || !errors.isEmpty()) {
            return new ParsedCompletion(thought, calls, null, FormatSupport.capErrors(errors), null);
        }
        if (ts.unclosed()) {
            String why = cutOff ? " (the completion was cut off by the token limit)" : "";
            return new ParsedCompletion(thought, List.of(), null, List.of("the reasoning started with <think> was never "
                    + "closed with </think>" + why + "; keep the reasoning short, close it with </think>, then give the "
                    + "final answer or call a function with " + CALL_FORM), null);
        }
        String answer = body.strip();
        if (answer.isEmpty()) {
            return new ParsedCompletion(thought, List.of(), null, List.of("empty completion: there is no final answer "
                    + "and no function call" + (ts.think().isBlank() ? "" : " after the reasoning")
                    + "; write the final answer as plain text, or call a function with " + CALL_FORM), null);
        }
        return new ParsedCompletion(ts.think().strip(), List.of(), answer, List.of(), null);
    }

    /** A closing tag outside any block means the model lost track of its tags; say where. */
    private static void checkStray(String segment, List<String> errors) {
        int stray = segment.indexOf(CLOSE);
        if (stray < 0) return;
        String near = FormatSupport.snippet(segment.substring(Math.max(0, stray - 60), stray + CLOSE.length()), 120);
        errors.add("stray " + CLOSE + " without an opening " + OPEN + " (near \"" + near + "\"); write every call as "
                + CALL_FORM);
    }

    private static void readBlock(String content, int index, boolean terminated, boolean cutOff, List<ToolCall> calls,
                                  List<String> errors) {
        String label = OPEN + " block " + index;
        String json = FormatSupport.stripFences(content);
        if (json.isEmpty()) {
            errors.add(label + " is empty; put one JSON object inside: " + CALL_FORM);
            return;
        }
        JsonNode node;
        try {
            node = FormatSupport.parseJson(json);
        } catch (JsonProcessingException e) {
            String open = terminated ? "" : cutOff
                    ? " (the block has no closing " + CLOSE + ": the completion was cut off by the token limit)"
                    : " (the block has no closing " + CLOSE + ")";
            errors.add(label + " is not valid JSON: " + FormatSupport.describe(e) + open + "; got \""
                    + FormatSupport.snippet(json, 120) + "\"; write exactly one JSON object per block: " + CALL_FORM);
            return;
        }
        if (node.isArray()) {
            // a list of calls in one block (Llama-style); each element is one call
            for (int i = 0; i < node.size(); i++) readCall(node.get(i), label + " item " + (i + 1), calls, errors);
        } else {
            readCall(node, label, calls, errors);
        }
    }

    private static void readCall(JsonNode node, String label, List<ToolCall> calls, List<String> errors) {
        if (!node.isObject()) {
            errors.add(label + " must hold a JSON object, got " + FormatSupport.typeName(node) + " \""
                    + FormatSupport.snippet(node.toString(), 80) + "\"; write " + CALL_FORM);
            return;
        }
        JsonNode obj = node;
        // models that imitate the tools listing write {"type": "function", "function": {...}}
        if (!obj.has("name") && obj.path("function").isObject()) obj = obj.get("function");
        JsonNode name = obj.get("name");
        if (name == null || !name.isTextual() || name.asText().isBlank()) {
            String got = name == null ? "it is missing" : "got " + FormatSupport.typeName(name) + " "
                    + FormatSupport.snippet(name.toString(), 60);
            errors.add(label + " needs \"name\": the function to call as a non-empty string (" + got + "); write "
                    + CALL_FORM);
            return;
        }
        String fn = name.asText().strip();
        JsonNode rawArgs = obj.has("arguments") ? obj.get("arguments") : obj.get("parameters");
        FormatSupport.Args args = FormatSupport.decodeArguments(rawArgs);
        if (args.problem() != null) {
            errors.add(label + " (" + FormatSupport.snippet(fn, 60) + "): " + args.problem() + "; write " + CALL_FORM);
            return;
        }
        calls.add(new ToolCall("call_" + calls.size(), fn, args.value()));
    }

    /** The raw text is what the model wrote; re-rendering it keeps the context identical to the tokens. */
    @Override
    public Message assistantMessage(Completion completion, ParsedCompletion parsed) {
        return Message.assistant(completion.text());
    }

    @Override
    public List<Message> observations(List<ToolResult> results) {
        // error results too: their content already says what went wrong
        return FormatSupport.userObservation(results, "\n",
                r -> "<tool_response>\n" + Objects.toString(r.content(), "") + "\n</tool_response>");
    }

    @Override
    public Message formatFeedback(List<String> errors) {
        return Message.user("Your last message could not be used:\n" + FormatSupport.bullets(errors)
                + "\nTo call a function, write one block per call:\n" + CALL_FORM
                + "\nwith a JSON object as \"arguments\". To finish, write the final answer as plain text without "
                + OPEN + " tags.");
    }

    @Override
    public Completion write(String thought, List<ToolCall> calls, String answer) {
        FormatSupport.requireCallsOrAnswer(calls, answer);
        StringBuilder sb = new StringBuilder(FormatSupport.thinkBlock(thought));
        if (answer != null) return Completion.ofText(sb.append(answer).toString(), 0, 0);
        for (int i = 0; i < calls.size(); i++) {
            ObjectNode call = Json.object();
            call.put("name", calls.get(i).name());
            call.set("arguments", calls.get(i).arguments());
            sb.append(i == 0 ? "" : "\n").append(OPEN).append('\n').append(Json.write(call)).append('\n').append(CLOSE);
        }
        return Completion.ofText(sb.toString(), 0, 0);
    }
}
