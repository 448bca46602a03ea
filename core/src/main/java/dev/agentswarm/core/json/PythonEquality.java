package dev.agentswarm.core.json;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.Iterator;
import java.util.Map;

/**
 * Python's {@code ==} on values {@code json.loads} made, for benchmark scorers that compare with it (BFCL's
 * checker, τ²'s action check): numbers by exact value with {@code bool} as 0 and 1 ({@code 1 == 1.0 == True}),
 * NaN equal to nothing, a string only to a string, {@code None} only to {@code None}, lists element by
 * element, dicts key by key.
 */
public final class PythonEquality {

    private PythonEquality() {}

    public static boolean equal(JsonNode a, JsonNode b) {
        boolean noneA = a == null || a.isNull() || a.isMissingNode();
        boolean noneB = b == null || b.isNull() || b.isMissingNode();
        if (noneA || noneB) return noneA && noneB;
        if (numeric(a) && numeric(b)) {
            BigDecimal x = exact(a);
            BigDecimal y = exact(b);
            return x != null && y != null && x.compareTo(y) == 0;
        }
        if (a.isTextual() || b.isTextual()) return a.isTextual() && b.isTextual() && a.asText().equals(b.asText());
        if (a.isArray() && b.isArray()) {
            if (a.size() != b.size()) return false;
            for (int i = 0; i < a.size(); i++) if (!equal(a.get(i), b.get(i))) return false;
            return true;
        }
        if (a.isObject() && b.isObject()) {
            if (a.size() != b.size()) return false;
            for (Iterator<Map.Entry<String, JsonNode>> it = a.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                JsonNode other = b.get(e.getKey());
                if (other == null || !equal(e.getValue(), other)) return false;
            }
            return true;
        }
        return false;
    }

    private static boolean numeric(JsonNode n) {
        return n.isNumber() || n.isBoolean();
    }

    /** The exact value, as Python compares an int with a float; null for NaN and the infinities. */
    private static BigDecimal exact(JsonNode n) {
        if (n.isBoolean()) return n.booleanValue() ? BigDecimal.ONE : BigDecimal.ZERO;
        if (n.isIntegralNumber()) return new BigDecimal(n.bigIntegerValue());
        if (n.isBigDecimal()) return n.decimalValue();
        double d = n.doubleValue();
        return Double.isFinite(d) ? new BigDecimal(d) : null;
    }
}
