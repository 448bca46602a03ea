package dev.agentswarm.environments.bfcl;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.PythonText;
import java.util.Iterator;
import java.util.Map;

/** Python's {@code json.dumps} with its defaults (", " and ": " between items, non-ASCII escaped), for text BFCL writes into prompts. */
final class PythonJson {

    private PythonJson() {}

    static String dumps(JsonNode v) {
        StringBuilder sb = new StringBuilder();
        write(v, sb);
        return sb.toString();
    }

    private static void write(JsonNode v, StringBuilder sb) {
        if (v == null || v.isNull() || v.isMissingNode()) {
            sb.append("null");
        } else if (v.isBoolean()) {
            sb.append(v.booleanValue());
        } else if (v.isIntegralNumber()) {
            sb.append(v.bigIntegerValue());
        } else if (v.isNumber()) {
            sb.append(PythonText.jsonFloat(v.doubleValue()));
        } else if (v.isTextual()) {
            string(v.asText(), sb);
        } else if (v.isArray()) {
            sb.append('[');
            for (int i = 0; i < v.size(); i++) {
                if (i > 0) sb.append(", ");
                write(v.get(i), sb);
            }
            sb.append(']');
        } else {
            sb.append('{');
            boolean first = true;
            for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (!first) sb.append(", ");
                first = false;
                string(e.getKey(), sb);
                sb.append(": ");
                write(e.getValue(), sb);
            }
            sb.append('}');
        }
    }

    private static void string(String s, StringBuilder sb) {
        PythonText.jsonString(sb, s, true);
    }
}
