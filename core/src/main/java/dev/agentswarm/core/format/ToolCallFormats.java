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

    /** Every format, in a stable order. */
    public static List<ToolCallFormat> all() {
        return List.copyOf(BY_NAME.values());
    }

    public static List<String> names() {
        return new ArrayList<>(BY_NAME.keySet());
    }
}
