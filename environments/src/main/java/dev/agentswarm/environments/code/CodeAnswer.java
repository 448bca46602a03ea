package dev.agentswarm.environments.code;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The program in a model's answer: the last Python fenced block (```python, ```py or a bare fence)
 * that defines the entry point, else the last Python fenced block, else the whole answer when it
 * defines the entry point without fences. {@code asAsked} is true only for the first kind, the
 * form the prompt asks for.
 */
public record CodeAnswer(String code, boolean asAsked) {

    private static final Pattern FENCE = Pattern.compile("```[ \\t]*([A-Za-z0-9_+-]*)[^\\n]*\\n(.*?)(?:```|\\z)", Pattern.DOTALL);

    /** The code to grade in {@code answer}, or null when there is none. */
    public static CodeAnswer find(String answer, String entryPoint) {
        if (answer == null || answer.isBlank()) return null;
        Pattern defines = Pattern.compile("(?m)^[ \\t]*(?:async[ \\t]+)?def[ \\t]+" + Pattern.quote(entryPoint) + "[ \\t]*\\(");
        String lastDefining = null;
        String last = null;
        Matcher m = FENCE.matcher(answer);
        while (m.find()) {
            String lang = m.group(1).toLowerCase(Locale.ROOT);
            if (!lang.isEmpty() && !lang.equals("python") && !lang.equals("py") && !lang.equals("python3")) continue;
            last = m.group(2);
            if (defines.matcher(last).find()) lastDefining = last;
        }
        if (lastDefining != null) return new CodeAnswer(lastDefining, true);
        if (last != null) return new CodeAnswer(last, false);
        return defines.matcher(answer).find() ? new CodeAnswer(answer, false) : null;
    }
}
