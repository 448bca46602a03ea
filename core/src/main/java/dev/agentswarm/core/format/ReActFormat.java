package dev.agentswarm.core.format;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.ToolSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The ReAct text protocol (§4.5 of the research notes): {@code Thought:} / {@code Action:} /
 * {@code Action Input:} lines, one call per turn, {@code Final Answer:} to finish, results fed
 * back as {@code Observation:}. Labels are recognised only at the start of a line, so a thought
 * that merely mentions "the Action: field" is not mistaken for a call.
 */
public final class ReActFormat implements ToolCallFormat {

    public static final String NAME = "react";

    static final String OBSERVATION = "Observation:";

    private static final List<String> STOPS = List.of("\n" + OBSERVATION, OBSERVATION);

    /** The lines of the format, repeated in every feedback message. */
    static final String FORMAT_LINES = """
            Thought: you should always think about what to do
            Action: the action to take, one of the tools
            Action Input: the input to the action, a JSON object
            or, once you know the answer:
            Thought: I now know the final answer
            Final Answer: the final answer to the original input question""";

    private enum Label { NONE, THOUGHT, ACTION, ACTION_INPUT, FINAL_ANSWER, OBSERVATION }

    /** One labelled stretch of the completion: the label's line and the lines up to the next label. */
    private record Section(Label label, int offset, String content) {}

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String toolsPrompt(List<ToolSpec> tools) {
        List<String> names = FormatSupport.toolNames(tools);
        StringBuilder descs = new StringBuilder();
        if (tools != null) {
            for (ToolSpec t : tools) {
                if (t == null) continue;
                if (descs.length() > 0) descs.append("\n\n");
                descs.append(Objects.toString(t.name(), "")).append(": ").append(Objects.toString(t.description(), "").strip())
                        .append(" Parameters: ").append(FormatSupport.pyJson(FormatSupport.parametersOf(t)));
            }
        }
        // the task itself arrives as the user message, so the template's trailing "Question: {query}" is left out
        return "Answer the following questions as best you can. You have access to the following tools:\n\n"
                + descs + "\n\n"
                + "Use the following format:\n\n"
                + "Question: the input question you must answer\n"
                + "Thought: you should always think about what to do\n"
                + "Action: the action to take, should be one of [" + String.join(", ", names) + "]\n"
                + "Action Input: the input to the action\n"
                + "Observation: the result of the action\n"
                + "... (this Thought/Action/Action Input/Observation can be repeated zero or more times)\n"
                + "Thought: I now know the final answer\n"
                + "Final Answer: the final answer to the original input question\n\n"
                + "Begin!";
    }

    @Override
    public List<String> stopSequences() {
        return STOPS;
    }

    @Override
    public ParsedCompletion parse(Completion completion, List<ToolSpec> tools) {
        return FormatSupport.guarded(completion, () -> read(completion.text(), tools));
    }

    private ParsedCompletion read(String text, List<ToolSpec> tools) {
        FormatSupport.ThinkSplit ts = FormatSupport.splitThink(text, null);
        String body = withoutHallucination(ts.rest());
        List<Section> sections = sections(body);

        List<String> thoughts = new ArrayList<>();
        thoughts.add(ts.think());
        Section action = null;
        Section input = null;
        Section answer = null;
        for (int i = 0; i < sections.size(); i++) {
            Section s = sections.get(i);
            switch (s.label()) {
                case ACTION -> {
                    // one call per turn: the first Action wins, later ones are ignored
                    if (action == null) {
                        action = s;
                        if (i + 1 < sections.size() && sections.get(i + 1).label() == Label.ACTION_INPUT) {
                            input = sections.get(i + 1);
                        }
                    }
                }
                case ACTION_INPUT -> { /* read together with its Action */ }
                case FINAL_ANSWER -> {
                    if (answer == null) answer = s;
                }
                default -> thoughts.add(s.content());
            }
        }
        String thought = FormatSupport.joinParts(thoughts);

        if (answer != null && action != null && input != null && !actionName(action).isEmpty()) {
            return error(thought, "Parsing LLM output produced both a final answer and a parse-able action: write "
                    + "either Action/Action Input (to use a tool) or Final Answer (to finish), never both in one message");
        }
        if (answer != null) {
            String a = answer.content().strip();
            if (a.isEmpty()) {
                return error(thought, "Invalid Format: 'Final Answer:' is empty; write the answer after it on the same line");
            }
            return new ParsedCompletion(thought, List.of(), a, List.of(), null);
        }
        if (action != null) return readAction(thought, action, input, tools);
        if (body.isBlank()) {
            return error(thought, "empty completion: write 'Thought:' then either 'Action:' and 'Action Input:' or "
                    + "'Final Answer:'");
        }
        return error(thought, "Invalid Format: Missing 'Action:' after 'Thought:'; to use a tool write 'Action:' "
                + "and 'Action Input:' lines, to finish write 'Final Answer:'");
    }

    private static ParsedCompletion error(String thought, String message) {
        return new ParsedCompletion(thought, List.of(), null, List.of(message), null);
    }

    private ParsedCompletion readAction(String thought, Section action, Section input, List<ToolSpec> tools) {
        String name = actionName(action);
        List<String> names = FormatSupport.toolNames(tools);
        if (name.isEmpty()) {
            return error(thought, "Invalid Format: 'Action:' is empty; name one of the tools [" + String.join(", ", names) + "]");
        }
        if (input == null) {
            return error(thought, "Invalid Format: Missing 'Action Input:' after 'Action:'; write 'Action Input:' "
                    + "with a JSON object of the arguments of " + FormatSupport.snippet(name, 60) + " on the next line");
        }
        ToolSpec spec = FormatSupport.find(tools, name);
        String raw = FormatSupport.stripFences(input.content());
        String problem;
        ObjectNode args = null;
        JsonNode json = null;
        String jsonError = null;
        try {
            json = FormatSupport.parseJson(raw);
        } catch (JsonProcessingException e) {
            jsonError = FormatSupport.describe(e);
        }
        if (json != null && json.isObject()) {
            args = (ObjectNode) json;
            problem = null;
        } else if (spec == null && !names.isEmpty()) {
            problem = "'" + FormatSupport.snippet(name, 60) + "' is not one of the tools [" + String.join(", ", names)
                    + "] and its 'Action Input:' is not a JSON object";
        } else if (raw.startsWith("{") || raw.startsWith("[")) {
            // it looks like an attempt at JSON: say what is wrong with it rather than guess
            problem = jsonError != null
                    ? "'Action Input:' is not valid JSON: " + jsonError + "; got \"" + FormatSupport.snippet(raw, 120)
                      + "\"; write the arguments as one complete JSON object"
                    : "'Action Input:' must be a JSON object of the arguments, got " + FormatSupport.typeName(json);
        } else {
            args = wrapSingle(spec, raw, json);
            problem = args != null ? null : raw.isEmpty()
                    ? "'Action Input:' is empty; give the arguments of " + FormatSupport.snippet(name, 60)
                      + " as a JSON object matching " + schemaText(spec)
                    : "'Action Input:' must be a JSON object of the arguments of " + FormatSupport.snippet(name, 60)
                      + " matching " + schemaText(spec) + ", got \"" + FormatSupport.snippet(raw, 120) + "\"";
        }
        if (problem != null) return error(thought, "Invalid Format: " + problem);
        return new ParsedCompletion(thought, List.of(new ToolCall("call_0", name, args)), null, List.of(), null);
    }

    /**
     * Plain text for a tool with a single parameter is that parameter (the classic
     * {@code Action Input: weather in Paris}); a JSON scalar is kept when the schema's type wants it.
     */
    private static ObjectNode wrapSingle(ToolSpec spec, String raw, JsonNode json) {
        if (spec == null) return null;
        List<String> props = FormatSupport.propertyNames(spec);
        List<String> required = FormatSupport.requiredNames(spec);
        if (raw.isEmpty()) return required.isEmpty() ? Json.object() : null;
        String param = required.size() == 1 ? required.get(0) : props.size() == 1 ? props.get(0) : null;
        if (param == null) return null;
        String type = spec.parameters().path("properties").path(param).path("type").asText("");
        JsonNode value;
        if (json != null && json.isTextual()) {
            value = json;
        } else if (json != null && matches(type, json)) {
            value = json;
        } else {
            value = TextNode.valueOf(raw);
        }
        ObjectNode args = Json.object();
        args.set(param, value);
        return args;
    }

    private static boolean matches(String type, JsonNode v) {
        return switch (type) {
            case "integer" -> v.isIntegralNumber();
            case "number" -> v.isNumber();
            case "boolean" -> v.isBoolean();
            case "array" -> v.isArray();
            default -> false;
        };
    }

    private static String schemaText(ToolSpec spec) {
        return spec == null ? "its parameters" : FormatSupport.snippet(FormatSupport.pyJson(FormatSupport.parametersOf(spec)), 300);
    }

    /** The tool name of an Action section, without the brackets or backticks models copy from the prompt. */
    private static String actionName(Section action) {
        String n = action.content().strip();
        int nl = n.indexOf('\n');
        if (nl >= 0) n = n.substring(0, nl).strip();
        if (n.length() >= 2 && (n.startsWith("[") && n.endsWith("]") || n.startsWith("`") && n.endsWith("`")
                || n.startsWith("\"") && n.endsWith("\""))) {
            n = n.substring(1, n.length() - 1).strip();
        }
        return n;
    }

    /**
     * Cuts the text at the first {@code Observation:} after the first Action: what follows is the
     * model imagining the tool's answer (the stop sequence should have prevented it).
     */
    private static String withoutHallucination(String text) {
        for (Section s : sections(text)) {
            if (s.label() == Label.ACTION) {
                int cut = text.indexOf(OBSERVATION, s.offset());
                return cut < 0 ? text : text.substring(0, cut);
            }
        }
        return text;
    }

    /** Splits the text into labelled sections, each running to the next labelled line. */
    private static List<Section> sections(String text) {
        List<Section> out = new ArrayList<>();
        Label current = Label.NONE;
        int currentOffset = 0;
        StringBuilder content = new StringBuilder();
        int pos = 0;
        while (pos <= text.length()) {
            int nl = text.indexOf('\n', pos);
            int end = nl < 0 ? text.length() : nl;
            String line = text.substring(pos, end);
            int[] labelEnd = new int[1];
            Label l = labelOf(line, labelEnd);
            if (l != Label.NONE) {
                if (current != Label.NONE || content.length() > 0) out.add(new Section(current, currentOffset, content.toString()));
                current = l;
                currentOffset = pos;
                content.setLength(0);
                content.append(line, labelEnd[0], line.length());
            } else {
                if (content.length() > 0 || current != Label.NONE) content.append('\n');
                content.append(line);
            }
            if (nl < 0) break;
            pos = nl + 1;
        }
        if (current != Label.NONE || content.length() > 0) out.add(new Section(current, currentOffset, content.toString()));
        return out;
    }

    /**
     * The label a line starts with; digits may follow a word, as LangChain's
     * {@code Action\s*\d*\s*Input\s*\d*\s*:} allows ({@code Action 2 Input 2:}). {@code end[0]}
     * receives the index of the section's text on that line.
     */
    private static Label labelOf(String line, int[] end) {
        int i = skipBlanks(line, 0);
        Label l;
        int after;
        if (line.startsWith("Action", i)) {
            after = skipDigits(line, i + "Action".length());
            if (line.startsWith("Input", after)) {
                l = Label.ACTION_INPUT;
                after = skipDigits(line, after + "Input".length());
            } else {
                l = Label.ACTION;
            }
        } else if (line.startsWith("Final Answer", i)) {
            l = Label.FINAL_ANSWER;
            after = skipDigits(line, i + "Final Answer".length());
        } else if (line.startsWith("Thought", i)) {
            l = Label.THOUGHT;
            after = skipDigits(line, i + "Thought".length());
        } else if (line.startsWith("Observation", i)) {
            l = Label.OBSERVATION;
            after = skipDigits(line, i + "Observation".length());
        } else {
            return Label.NONE;
        }
        if (after >= line.length() || line.charAt(after) != ':') return Label.NONE;
        end[0] = skipBlanks(line, after + 1);
        return l;
    }

    private static int skipBlanks(String s, int i) {
        while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t' || s.charAt(i) == '\r')) i++;
        return i;
    }

    /** Skips {@code \s*\d*\s*}. */
    private static int skipDigits(String s, int i) {
        i = skipBlanks(s, i);
        while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') i++;
        return skipBlanks(s, i);
    }

    /** The text without a hallucinated Observation: the context must not hold an answer no tool gave. */
    @Override
    public Message assistantMessage(Completion completion, ParsedCompletion parsed) {
        String text = completion.text();
        String rest = FormatSupport.splitThink(text, null).rest();
        // rest is a suffix of text: keep the reasoning as written, cut only after the first Action
        return Message.assistant((text.substring(0, text.length() - rest.length()) + withoutHallucination(rest)).stripTrailing());
    }

    @Override
    public List<Message> observations(List<ToolResult> results) {
        return FormatSupport.userObservation(results, "\n", r -> OBSERVATION + ' ' + Objects.toString(r.content(), ""));
    }

    @Override
    public Message formatFeedback(List<String> errors) {
        return Message.user("Your last message could not be used:\n" + FormatSupport.bullets(errors)
                + "\nUse exactly this format:\n" + FORMAT_LINES);
    }

    @Override
    public Completion write(String thought, List<ToolCall> calls, String answer) {
        FormatSupport.requireCallsOrAnswer(calls, answer);
        String think = "Thought: " + (thought == null || thought.isBlank() ? "I know what to do next." : thought.strip().replace('\n', ' '));
        if (answer != null) return Completion.ofText(think + "\nFinal Answer: " + answer, 0, 0);
        if (calls.size() > 1) throw new IllegalArgumentException("ReAct makes one call per turn, got " + calls.size());
        ToolCall call = calls.get(0);
        return Completion.ofText(think + "\nAction: " + call.name() + "\nAction Input: " + Json.write(call.arguments()), 0, 0);
    }
}
