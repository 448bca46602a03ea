package dev.agentswarm.core.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A one-line view of a turn's tool calls for live views and logs, {@code calculator(expression: "2+3")},
 * built in one pass and cut at a length: cheaper than serialising the arguments, as it runs every turn.
 */
public final class ToolCallSummary {

    private ToolCallSummary() {}

    public static String of(List<ToolCall> calls, int maxChars) {
        StringBuilder b = new StringBuilder();
        for (ToolCall c : calls) {
            if (b.length() > 0) b.append(", ");
            b.append(c.name()).append('(');
            JsonNode args = c.arguments();
            if (args != null && args.isObject()) {
                boolean first = true;
                for (Iterator<Map.Entry<String, JsonNode>> it = args.fields(); it.hasNext() && b.length() < maxChars; ) {
                    Map.Entry<String, JsonNode> f = it.next();
                    if (!first) b.append(", ");
                    first = false;
                    b.append(f.getKey()).append(": ");
                    JsonNode v = f.getValue();
                    if (v.isTextual()) b.append('"').append(v.textValue()).append('"');
                    else if (v.isContainerNode()) b.append(v.isArray() ? "[…]" : "{…}");
                    else b.append(v.asText());
                }
            }
            b.append(')');
            if (b.length() >= maxChars) break;
        }
        return b.length() <= maxChars ? b.toString() : b.substring(0, maxChars - 1) + "…";
    }
}
