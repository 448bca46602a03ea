package dev.agentswarm.policy.openai;

import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The function names a request sends, for tools whose names the OpenAI API refuses: it accepts
 * {@code ^[a-zA-Z0-9_-]{1,64}$} only, and MCP tools are offered as {@code server.tool}. Such a name
 * goes on the wire with every other character as {@code _} (cut to 64, with {@code _2}, {@code _3}… when
 * that meets another tool's name), in the tool list, the history's tool calls and tool messages and a
 * named tool choice alike, so the model sees one name throughout; the answer's tool calls are mapped
 * back. Names the API accepts travel unchanged, and a request without such names is sent as before.
 */
final class FunctionNames {

    static final Pattern ACCEPTED = Pattern.compile("^[a-zA-Z0-9_-]{1,64}$");
    private static final FunctionNames NONE = new FunctionNames(Map.of(), Map.of());

    private final Map<String, String> toWire;
    private final Map<String, String> fromWire;

    private FunctionNames(Map<String, String> toWire, Map<String, String> fromWire) {
        this.toWire = toWire;
        this.fromWire = fromWire;
    }

    /** The mapping for a request offering {@code tools}. */
    static FunctionNames of(List<ToolSpec> tools) {
        List<String> names = new ArrayList<>();
        for (ToolSpec t : tools) if (t != null && t.name() != null) names.add(t.name());
        if (names.stream().allMatch(n -> ACCEPTED.matcher(n).matches())) return NONE;
        Set<String> taken = new HashSet<>();
        for (String n : names) if (ACCEPTED.matcher(n).matches()) taken.add(n);
        Map<String, String> to = new HashMap<>();
        Map<String, String> from = new HashMap<>();
        for (String n : names) {
            if (ACCEPTED.matcher(n).matches() || to.containsKey(n)) continue;
            String base = n.isEmpty() ? "_" : n.replaceAll("[^a-zA-Z0-9_-]", "_");
            String wire = cut(base, 64);
            for (int i = 2; taken.contains(wire); i++) wire = cut(base, 64 - ("_" + i).length()) + "_" + i;
            taken.add(wire);
            to.put(n, wire);
            from.put(wire, n);
        }
        return new FunctionNames(Map.copyOf(to), Map.copyOf(from));
    }

    private static String cut(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max);
    }

    /** The name to send for tool {@code name}. */
    String wire(String name) {
        if (name == null) return null;
        return toWire.getOrDefault(name, name);
    }

    /** {@code c} with its tool calls under the tools' own names. */
    Completion restore(Completion c) {
        if (fromWire.isEmpty() || c.toolCalls().isEmpty()) return c;
        List<ToolCall> calls = new ArrayList<>(c.toolCalls().size());
        for (ToolCall call : c.toolCalls()) {
            String own = fromWire.get(call.name());
            calls.add(own == null ? call : new ToolCall(call.id(), own, call.arguments()));
        }
        return new Completion(c.text(), calls, c.tokenIds(), c.logprobs(), c.finishReason(), c.policyVersion(), c.promptTokens(),
                c.completionTokens(), c.lastPolicyVersion(), c.promptIds());
    }
}
