package dev.agentswarm.core.format;

import dev.agentswarm.core.protocol.ToolCall;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.ToolSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Text and JSON helpers shared by the formats. Everything here scans with {@code indexOf} and
 * plain loops: completions are untrusted input, and backtracking regexes can take exponential
 * time on adversarial text.
 */
final class FormatSupport {

    /** Prefix of the error a format reports when its own code failed; tests assert it never appears. */
    static final String INTERNAL_ERROR_PREFIX = "internal error while reading the completion";

    /** Errors fed back to a model beyond this count only add noise (and tokens). */
    static final int MAX_ERRORS = 20;

    static final String THINK_OPEN = "<think>";
    static final String THINK_CLOSE = "</think>";

    /**
     * Trailing tokens must fail: {@code {"name": "a"} junk} is not one JSON object, and accepting
     * it silently would hide a format error the model should learn from.
     */
    private static final ObjectReader STRICT = Json.MAPPER.reader()
            .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private FormatSupport() {}

    /** The leading reasoning block and what follows it. */
    record ThinkSplit(String think, String rest, boolean unclosed) {}

    /**
     * Splits an optional leading {@code <think>…</think>}. A completion may also start inside the
     * reasoning with only the closing tag (templates that put {@code <think>} in the prompt). An
     * unclosed {@code <think>} runs up to {@code boundary} (e.g. the first {@code <tool_call>}) or to
     * the end; a closing tag only counts when it comes before {@code boundary}.
     */
    static ThinkSplit splitThink(String text, String boundary) {
        int lead = 0;
        while (lead < text.length() && Character.isWhitespace(text.charAt(lead))) lead++;
        int limit = boundary == null ? -1 : text.indexOf(boundary);
        if (text.startsWith(THINK_OPEN, lead)) {
            int from = lead + THINK_OPEN.length();
            int close = text.indexOf(THINK_CLOSE, from);
            if (close >= 0 && (limit < 0 || close < limit)) {
                return new ThinkSplit(text.substring(from, close), text.substring(close + THINK_CLOSE.length()), false);
            }
            if (limit >= from) return new ThinkSplit(text.substring(from, limit), text.substring(limit), true);
            return new ThinkSplit(text.substring(from), "", true);
        }
        int close = text.indexOf(THINK_CLOSE);
        if (close >= 0 && (limit < 0 || close < limit)) {
            return new ThinkSplit(text.substring(0, close), text.substring(close + THINK_CLOSE.length()), false);
        }
        return new ThinkSplit("", text, false);
    }

    /** Joins the non-blank trimmed parts with newlines: the thought is every piece of prose the model wrote. */
    static String joinParts(List<String> parts) {
        StringBuilder sb = new StringBuilder();
        for (String p : parts) {
            if (p == null) continue;
            String t = p.strip();
            if (t.isEmpty()) continue;
            if (sb.length() > 0) sb.append('\n');
            sb.append(t);
        }
        return sb.toString();
    }

    /** Strict JSON parse; {@code null} for blank text. */
    static JsonNode parseJson(String text) throws JsonProcessingException {
        if (text == null || text.isBlank()) return null;
        return STRICT.readTree(text);
    }

    /** A Jackson error in one line a model can act on: what went wrong and where. */
    static String describe(JsonProcessingException e) {
        String msg = e.getOriginalMessage();
        if (msg == null) msg = e.getClass().getSimpleName();
        int nl = msg.indexOf('\n');
        if (nl >= 0) msg = msg.substring(0, nl);
        // "(start marker at [Source: REDACTED (...); line: 1, column: 1])" -> "(start marker at line: 1, column: 1)"
        int src = msg.indexOf("[Source: ");
        if (src >= 0) {
            int line = msg.indexOf("line: ", src);
            int close = msg.indexOf(']', src);
            if (line > src && close > line) msg = msg.substring(0, src) + msg.substring(line, close) + msg.substring(close + 1);
        }
        msg = snippet(msg, 200);
        JsonLocation loc = e.getLocation();
        if (loc != null && loc.getLineNr() > 0) {
            return msg + " at line " + loc.getLineNr() + ", column " + loc.getColumnNr();
        }
        return msg;
    }

    /** At most {@code max} characters of {@code s} on one line, marked when cut, for quoting inside errors. */
    static String snippet(String s, int max) {
        String flat = s.replace('\n', ' ').replace('\r', ' ');
        if (flat.length() <= max) return flat;
        int cut = max;
        // never split a surrogate pair: half a character would make the feedback invalid UTF-16
        if (Character.isHighSurrogate(flat.charAt(cut - 1))) cut--;
        return flat.substring(0, cut) + "…";
    }

    /** Removes one surrounding Markdown code fence ({@code ```json … ```}), which models add out of habit. */
    static String stripFences(String s) {
        String t = s.strip();
        if (!t.startsWith("```")) return t;
        int nl = t.indexOf('\n');
        String body;
        if (nl < 0) {
            body = t.substring(3);
            // one-line fence: ```{"a": 1}``` or ```json {"a": 1}```
            int i = 0;
            while (i < body.length() && Character.isLetter(body.charAt(i))) i++;
            body = body.substring(i);
        } else {
            body = t.substring(nl + 1);
        }
        body = body.strip();
        if (body.endsWith("```")) body = body.substring(0, body.length() - 3);
        return body.strip();
    }

    /**
     * Index of the brace that closes the object opened at {@code start}, ignoring braces inside
     * JSON strings; -1 when it never closes. Stops after {@code budget} characters so that many
     * failed attempts on one huge completion stay linear overall.
     */
    static int matchBrace(String s, int start, int budget) {
        int depth = 0;
        boolean inString = false;
        int end = (int) Math.min((long) s.length(), (long) start + budget);
        for (int i = start; i < end; i++) {
            char c = s.charAt(i);
            if (inString) {
                if (c == '\\') i++;
                else if (c == '"') inString = false;
            } else if (c == '"') {
                inString = true;
            } else if (c == '{') {
                depth++;
            } else if (c == '}') {
                depth--;
                if (depth == 0) return i;
            }
        }
        return -1;
    }

    /** Decoded tool arguments: an object, or the problem that prevented it. */
    record Args(ObjectNode value, String problem) {}

    /**
     * Tool arguments as an object. They arrive as an object (Hermes), as a JSON-encoded string
     * (OpenAI {@code tool_calls}, and models imitating it) or not at all (a call without
     * parameters). {@code problem} says what is wrong in words a model can act on.
     */
    static Args decodeArguments(JsonNode args) {
        if (args == null || args.isNull() || args.isMissingNode()) return new Args(Json.object(), null);
        if (args.isObject()) return new Args((ObjectNode) args, null);
        if (args.isTextual()) {
            String s = args.asText().strip();
            if (s.isEmpty()) return new Args(Json.object(), null);
            JsonNode decoded;
            try {
                decoded = parseJson(s);
            } catch (JsonProcessingException e) {
                return new Args(null, "\"arguments\" is a string that is not valid JSON (" + describe(e)
                        + "); give a JSON object of parameter names to values");
            }
            if (decoded != null && decoded.isObject()) return new Args((ObjectNode) decoded, null);
            return new Args(null, "\"arguments\" must be a JSON object of parameter names to values, got a string holding "
                    + typeName(decoded));
        }
        return new Args(null, "\"arguments\" must be a JSON object of parameter names to values, got " + typeName(args)
                + " " + snippet(args.toString(), 80));
    }

    /** "an array", "a number"…: the JSON type of a node as an error message names it. */
    static String typeName(JsonNode n) {
        if (n == null || n.isMissingNode()) return "nothing";
        return switch (n.getNodeType()) {
            case ARRAY -> "an array";
            case OBJECT -> "an object";
            case STRING -> "a string";
            case NUMBER -> "a number";
            case BOOLEAN -> "a boolean";
            case NULL -> "null";
            default -> "a " + n.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
        };
    }

    /** The names of the arguments schema's properties, in order; empty when it declares none. */
    static List<String> propertyNames(ToolSpec spec) {
        List<String> names = new ArrayList<>();
        JsonNode props = spec == null || spec.parameters() == null ? null : spec.parameters().get("properties");
        if (props != null && props.isObject()) props.fieldNames().forEachRemaining(names::add);
        return names;
    }

    static List<String> requiredNames(ToolSpec spec) {
        List<String> names = new ArrayList<>();
        JsonNode req = spec == null || spec.parameters() == null ? null : spec.parameters().get("required");
        if (req != null && req.isArray()) {
            for (JsonNode r : req) if (r.isTextual()) names.add(r.asText());
        }
        return names;
    }

    /** The schema of a tool's arguments, an empty object schema when it declares none. */
    static JsonNode parametersOf(ToolSpec spec) {
        if (spec.parameters() != null && spec.parameters().isObject()) return spec.parameters();
        ObjectNode empty = Json.object();
        empty.put("type", "object");
        empty.set("properties", Json.object());
        return empty;
    }

    static ToolSpec find(List<ToolSpec> tools, String name) {
        if (tools == null || name == null) return null;
        for (ToolSpec t : tools) if (t != null && name.equals(t.name())) return t;
        return null;
    }

    static List<String> toolNames(List<ToolSpec> tools) {
        List<String> names = new ArrayList<>();
        if (tools != null) for (ToolSpec t : tools) if (t != null && t.name() != null) names.add(t.name());
        return names;
    }

    /**
     * JSON as Python's {@code json.dumps(..., ensure_ascii=False)} writes it ({@code ", "} and
     * {@code ": "} separators): the prompts of §4.2 were trained with that rendering.
     */
    static String pyJson(JsonNode node) {
        StringBuilder sb = new StringBuilder();
        writePy(node, sb);
        return sb.toString();
    }

    private static void writePy(JsonNode node, StringBuilder sb) {
        if (node == null || node.isMissingNode()) {
            sb.append("null");
        } else if (node.isObject()) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<String, JsonNode> e : node.properties()) {
                if (!first) sb.append(", ");
                first = false;
                sb.append(Json.write(e.getKey())).append(": ");
                writePy(e.getValue(), sb);
            }
            sb.append('}');
        } else if (node.isArray()) {
            sb.append('[');
            for (int i = 0; i < node.size(); i++) {
                if (i > 0) sb.append(", ");
                writePy(node.get(i), sb);
            }
            sb.append(']');
        } else {
            sb.append(node.toString());
        }
    }

    /** Caps the list of errors; the rest is summarized so the model still knows there were more. */
    /** Checks that a completion to write is calls or an answer, not both or neither. */
    static void requireCallsOrAnswer(List<ToolCall> calls, String answer) {
        boolean hasCalls = calls != null && !calls.isEmpty();
        if (hasCalls == (answer != null)) {
            throw new IllegalArgumentException("a completion to write has tool calls or a final answer, not both or neither");
        }
    }

    /** {@code <think>thought</think>} and a blank line, or nothing for an empty thought. */
    static String thinkBlock(String thought) {
        return thought == null || thought.isBlank() ? "" : "<think>\n" + thought.strip() + "\n</think>\n\n";
    }

    static List<String> capErrors(List<String> errors) {
        if (errors.size() <= MAX_ERRORS) return errors;
        List<String> capped = new ArrayList<>(errors.subList(0, MAX_ERRORS));
        capped.add("(" + (errors.size() - MAX_ERRORS) + " more problems not shown; fix the ones above first)");
        return capped;
    }

    /** The completion a format returns when its own code failed: still an error the model can react to. */
    /**
     * Runs a format's reader with the "never throws" promise kept: a bug in a reader becomes an
     * error the model reads (and the fuzz test catches), not a crashed episode.
     */
    static ParsedCompletion guarded(Completion completion, java.util.function.Supplier<ParsedCompletion> reader) {
        try {
            return reader.get();
        } catch (RuntimeException | StackOverflowError e) {
            return internalError(completion.text(), e);
        }
    }

    /**
     * The results of one turn as a single user message: each rendered by {@code render}, joined by
     * {@code separator}, in call order. Text formats feed observations back this way.
     */
    static List<Message> userObservation(List<ToolResult> results, String separator,
                                         java.util.function.Function<ToolResult, String> render) {
        if (results == null || results.isEmpty()) return List.of();
        StringBuilder sb = new StringBuilder();
        for (ToolResult r : results) {
            if (sb.length() > 0) sb.append(separator);
            sb.append(render.apply(r));
        }
        return List.of(Message.user(sb.toString()));
    }

    static ParsedCompletion internalError(String text, Throwable t) {
        return new ParsedCompletion(text == null ? "" : text, List.of(), null,
                List.of(INTERNAL_ERROR_PREFIX + " (" + t.getClass().getSimpleName() + ": "
                        + snippet(Objects.toString(t.getMessage(), ""), 200) + "); please answer again in the required format"),
                null);
    }

    /** The bulleted error list every feedback message starts with. */
    static String bullets(List<String> errors) {
        if (errors == null || errors.isEmpty()) return "- the output could not be used\n";
        StringBuilder sb = new StringBuilder();
        for (String e : errors) sb.append("- ").append(e).append('\n');
        return sb.toString();
    }
}
