package dev.agentswarm.policy.chat.jinja;

import dev.agentswarm.core.json.PythonText;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Python's {@code json.dumps(x, ensure_ascii, indent, separators, sort_keys)}, which transformers
 * installs as the {@code tojson} filter: {@code ", "} and {@code ": "} between items (or {@code ","}
 * at line ends once indented), non-ASCII text as is unless {@code ensure_ascii}.
 */
final class PyJson {

    private final boolean ensureAscii;
    private final String indent;
    private final String itemSeparator;
    private final String keySeparator;
    private final boolean sortKeys;

    PyJson(boolean ensureAscii, Object indent, Object separators, boolean sortKeys) {
        this.ensureAscii = ensureAscii;
        if (indent == null || indent instanceof Undefined) this.indent = null;
        else if (indent instanceof String s) this.indent = s;
        else this.indent = " ".repeat((int) Math.max(0, Py.toLong(indent)));
        if (separators instanceof List<?> seps && seps.size() == 2) {
            this.itemSeparator = PyStrings.requireStr(seps.get(0), "tojson separators");
            this.keySeparator = PyStrings.requireStr(seps.get(1), "tojson separators");
        } else {
            this.itemSeparator = this.indent == null ? ", " : ",";
            this.keySeparator = ": ";
        }
        this.sortKeys = sortKeys;
    }

    String dumps(Object o) {
        StringBuilder sb = new StringBuilder();
        write(sb, o, 0);
        return sb.toString();
    }

    private void newline(StringBuilder sb, int level) {
        if (indent == null) return;
        sb.append('\n');
        for (int i = 0; i < level; i++) sb.append(indent);
    }

    private void write(StringBuilder sb, Object o, int level) {
        if (o == null) sb.append("null");
        else if (o instanceof Boolean b) sb.append(b ? "true" : "false");
        else if (o instanceof Long l) sb.append(l);
        else if (o instanceof Double d) sb.append(PythonText.jsonFloat(d));
        else if (o instanceof String s) string(sb, s);
        else if (o instanceof List<?> l) {
            if (l.isEmpty()) {
                sb.append("[]");
                return;
            }
            sb.append('[');
            for (int i = 0; i < l.size(); i++) {
                if (i > 0) sb.append(itemSeparator);
                newline(sb, level + 1);
                write(sb, l.get(i), level + 1);
            }
            newline(sb, level);
            sb.append(']');
        } else if (o instanceof Map<?, ?> m) {
            if (m.isEmpty()) {
                sb.append("{}");
                return;
            }
            List<Map.Entry<?, ?>> entries = new ArrayList<>(m.entrySet());
            if (sortKeys) entries.sort((a, b) -> Py.compare(keyText(a.getKey()), keyText(b.getKey()), "<"));
            sb.append('{');
            boolean first = true;
            for (var e : entries) {
                if (!first) sb.append(itemSeparator);
                first = false;
                newline(sb, level + 1);
                string(sb, keyText(e.getKey()));
                sb.append(keySeparator);
                write(sb, e.getValue(), level + 1);
            }
            newline(sb, level);
            sb.append('}');
        } else {
            throw new TemplateError("Object of type " + Py.typeName(o) + " is not JSON serializable");
        }
    }

    private static String keyText(Object k) {
        if (k instanceof String s) return s;
        if (k == null) return "null";
        if (k instanceof Boolean b) return b ? "true" : "false";
        if (k instanceof Long || k instanceof Double) return Py.repr(k);
        throw new TemplateError("keys must be str, int, float, bool or None, not " + Py.typeName(k));
    }

    private void string(StringBuilder sb, String s) {
        PythonText.jsonString(sb, s, ensureAscii);
    }
}
