package dev.agentswarm.core.format;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The formats known by name, as configuration refers to them ({@code format = hermes}). Formats
 * are stateless, so one shared instance of each serves every episode.
 */
public final class ToolCallFormats {

    private static final Map<String, ToolCallFormat> BY_NAME = new LinkedHashMap<>();

    static {
        for (ToolCallFormat f : List.of(new HermesFormat(), new ReActFormat(), new OpenAiToolCallsFormat(),
                new JsonPlanFormat())) {
            BY_NAME.put(f.name(), f);
        }
    }

    private ToolCallFormats() {}

    /**
     * The format called {@code name} (case and surrounding blanks ignored).
     *
     * @throws IllegalArgumentException naming the known formats when there is none by that name
     */
    public static ToolCallFormat byName(String name) {
        ToolCallFormat f = name == null ? null : BY_NAME.get(name.strip().toLowerCase(Locale.ROOT));
        if (f == null) {
            throw new IllegalArgumentException("unknown tool-call format '" + name + "'; known formats: "
                    + String.join(", ", names()));
        }
        return f;
    }

    /**
     * What a completion said for its reader to see: its answer, or the prose that came with its calls
     * without the reasoning of a leading {@code <think>} block (the thought of a parse holds both; a
     * conversation partner or a benchmark's record of the agent's words must not get the reasoning).
     */
    public static String spoken(dev.agentswarm.core.protocol.Completion completion, ParsedCompletion parsed) {
        if (parsed.hasFinalAnswer()) return parsed.finalAnswer();
        String thought = parsed.thought();
        String think = FormatSupport.splitThink(completion.text(), null).think().strip();
        if (think.isEmpty() || !thought.startsWith(think)) return thought;
        return thought.substring(think.length()).strip();
    }

    /** Every format, in a stable order. */
    public static List<ToolCallFormat> all() {
        return List.copyOf(BY_NAME.values());
    }

    public static List<String> names() {
        return new ArrayList<>(BY_NAME.keySet());
    }
}
