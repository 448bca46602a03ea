package dev.agentswarm.core.format;

import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.ToolSpec;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * OpenAI chat-completions {@code tools} / {@code tool_calls} (§4.1 of the research notes): the
 * server parses the calls, so tools travel in the request and calls come back in
 * {@link Completion#toolCalls()}. Their arguments are a JSON-encoded string on the wire, which the
 * model may have got wrong, so they are decoded and checked here.
 *
 * <p>A server started without a tool parser returns the raw {@code <tool_call>} blocks as text;
 * then the text is read as {@link HermesFormat} reads it.
 */
public final class OpenAiToolCallsFormat implements ToolCallFormat {

    public static final String NAME = "openai";

    private static final HermesFormat TEXT_FALLBACK = new HermesFormat();

    @Override
    public String name() {
        return NAME;
    }

    /** Tools go in the request's {@code tools} field, not in the prompt. */
    @Override
    public String toolsPrompt(List<ToolSpec> tools) {
        return "";
    }

    @Override
    public boolean nativeTools() {
        return true;
    }

    @Override
    public ParsedCompletion parse(Completion completion, List<ToolSpec> tools) {
        // no native calls: plain answer, or a server that left <tool_call> blocks in the text
        return FormatSupport.guarded(completion, () -> completion.toolCalls().isEmpty()
                ? TEXT_FALLBACK.parse(completion, tools) : readNative(completion));
    }

    private static ParsedCompletion readNative(Completion completion) {
        List<ToolCall> calls = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        List<ToolCall> raw = completion.toolCalls();
        for (int i = 0; i < raw.size(); i++) {
            ToolCall c = raw.get(i);
            if (c == null) {
                errors.add("tool call " + (i + 1) + " is empty; call a function with a name and a JSON object of arguments");
                continue;
            }
            // an id is how the result finds its call; invent one when the server sent none or a duplicate
            String id = c.id() == null || c.id().isBlank() || ids.contains(c.id()) ? "call_" + i : c.id();
            while (!ids.add(id)) id = id + "_" + i;
            String name = c.name() == null ? "" : c.name().strip();
            String who = "tool call " + FormatSupport.snippet(id, 60)
                    + (name.isEmpty() ? "" : " (" + FormatSupport.snippet(name, 60) + ")");
            if (name.isEmpty()) {
                errors.add(who + " has no function name; call one of the functions you were given by its name");
                continue;
            }
            FormatSupport.Args args = FormatSupport.decodeArguments(c.arguments());
            if (args.problem() != null) {
                errors.add(who + ": " + args.problem());
                continue;
            }
            calls.add(new ToolCall(id, name, args.value()));
        }
        FormatSupport.ThinkSplit ts = FormatSupport.splitThink(completion.text(), null);
        String thought = FormatSupport.joinParts(List.of(ts.think(), ts.rest()));
        if (calls.isEmpty() && errors.isEmpty()) {
            // cannot happen with at least one native call, but a parse must never claim success with nothing
            errors.add("no usable tool call; call a function or answer in plain text");
        }
        return new ParsedCompletion(thought, calls, null, FormatSupport.capErrors(errors), null);
    }

    /**
     * The text with the calls that were understood: strict servers reject an assistant message whose
     * calls are not all answered by tool messages, and only parsed calls get results. When the
     * calls were read from {@code <tool_call>} text, the content drops the blocks so the chat
     * template does not render every call twice.
     */
    @Override
    public Message assistantMessage(Completion completion, ParsedCompletion parsed) {
        if (completion.toolCalls().isEmpty() && !parsed.toolCalls().isEmpty()) {
            return Message.assistant(parsed.thought(), parsed.toolCalls());
        }
        return Message.assistant(completion.text(), parsed.toolCalls());
    }

    @Override
    public List<Message> observations(List<ToolResult> results) {
        if (results == null || results.isEmpty()) return List.of();
        List<Message> out = new ArrayList<>(results.size());
        for (ToolResult r : results) out.add(Message.tool(r.callId(), r.name(), Objects.toString(r.content(), "")));
        return out;
    }

    @Override
    public Message formatFeedback(List<String> errors) {
        return Message.user("Your last message could not be used:\n" + FormatSupport.bullets(errors)
                + "\nCall a function through the tools interface with its exact name and a JSON object of arguments "
                + "(for example {\"city\": \"Paris\"}), or answer in plain text when you are done.");
    }

    @Override
    public Completion write(String thought, List<ToolCall> calls, String answer) {
        FormatSupport.requireCallsOrAnswer(calls, answer);
        if (answer != null) return Completion.ofText(answer, 0, 0);
        // Arguments travel as a JSON string on the wire; this is the decoded form parse() also accepts.
        return new Completion(thought == null ? "" : thought.strip(), calls, null, null, FinishReason.TOOL_CALLS, 0, 0, 0);
    }
}
