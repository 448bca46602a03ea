package dev.agentswarm.environments.multihop;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A final answer with its citations: {@code "Stanley [8][1]"} or {@code "Stanley. Sources: [8], [1]"}
 * is the answer "Stanley" citing passages 8 and 1; {@code [3.1]} cites a sentence. The citations are
 * the predicted support (MuSiQue's {@code predicted_support_idxs}, HotpotQA's {@code sp}); the text
 * without them, and without a trailing "Sources:" label, is what answer EM and F1 score. (SQuAD
 * normalisation would otherwise turn "[8]" into a token "8" that costs precision.)
 */
public record CitedAnswer(String text, List<String> citations) {

    private static final Pattern CITATION = Pattern.compile("\\[\\s*(\\d+(?:\\.\\d+)?)\\s*]");
    private static final Pattern SOURCES_LABEL = Pattern.compile("(?i)[\\s.;,(]*(?:sources?|citations?|support(?:ing facts)?)\\s*:[\\s.;,)]*$");

    public static CitedAnswer parse(String answer) {
        if (answer == null) return new CitedAnswer("", List.of());
        Set<String> keys = new LinkedHashSet<>();
        Matcher m = CITATION.matcher(answer);
        StringBuilder text = new StringBuilder();
        int last = 0;
        while (m.find()) {
            keys.add(m.group(1));
            text.append(answer, last, m.start()).append(' ');
            last = m.end();
        }
        text.append(answer.substring(last));
        String stripped = text.toString().replaceAll("(\\s*[,;]\\s*)+$", "").strip();
        if (!keys.isEmpty()) stripped = SOURCES_LABEL.matcher(stripped).replaceAll("").strip();
        // Separators left between removed citations ("Stanley , ,") are not part of the answer.
        stripped = stripped.replaceAll("(\\s+[,;])+$", "").replaceAll("\\s{2,}", " ").strip();
        return new CitedAnswer(stripped, new ArrayList<>(keys));
    }

    /** Renders an answer citing {@code keys}: {@code "Stanley [8][1]"}. */
    public static String write(String text, List<String> keys) {
        StringBuilder sb = new StringBuilder(text);
        if (!keys.isEmpty()) sb.append(' ');
        for (String k : keys) sb.append('[').append(k).append(']');
        return sb.toString();
    }
}
