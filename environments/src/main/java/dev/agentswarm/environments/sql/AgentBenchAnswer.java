package dev.agentswarm.environments.sql;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * AgentBench DBBench's comparison of a SELECT answer with its label: both sides cleaned (MySQL
 * tuple renderings unwrapped, quotes stripped, a trailing % dropped, thousands separators removed,
 * none/null/nan/inf/"" read as "0"); one value each: equal as numbers within 0.01, else as strings;
 * several: all numeric ones matched one to one within 0.01 after sorting, otherwise equal as sets.
 */
final class AgentBenchAnswer {

    private static final double TOLERANCE = 0.01;
    private static final Set<String> ZERO = Set.of("none", "null", "nan", "inf", "");

    private AgentBenchAnswer() {}

    static boolean matches(List<String> answer, List<String> label) {
        List<String> a = clean(answer);
        List<String> g = clean(label);
        if (a.size() == 1 && g.size() == 1) return same(a.get(0), g.get(0));
        if (a.size() != g.size()) return new HashSet<>(a).equals(new HashSet<>(g)) && !a.isEmpty();
        List<Double> an = numbers(a);
        List<Double> gn = numbers(g);
        if (an != null && gn != null) {
            an.sort(null);
            gn.sort(null);
            for (int i = 0; i < an.size(); i++) if (Math.abs(an.get(i) - gn.get(i)) > TOLERANCE) return false;
            return true;
        }
        return new HashSet<>(a).equals(new HashSet<>(g));
    }

    /** The values of a final answer: a JSON-like list ["a", "b"] / ('a',) or a single value. */
    static List<String> parse(String finalAnswer) {
        if (finalAnswer == null) return List.of();
        String s = finalAnswer.strip();
        if (s.startsWith("[") && s.endsWith("]")) {
            try {
                // Proper JSON first: its strings may hold quotes and commas.
                JsonNode array = Json.parse(s);
                List<String> out = new ArrayList<>();
                array.forEach(v -> out.add(v.isTextual() ? v.textValue() : v.toString()));
                return out;
            } catch (IOException e) {
                // Python-style lists such as ['a', 'b'] or [('x',)] fall through to the lenient split.
            }
            String inner = s.substring(1, s.length() - 1).strip();
            List<String> out = new ArrayList<>();
            if (inner.isEmpty()) return out;
            for (String part : splitTopLevel(inner)) out.add(part.strip());
            return out;
        }
        return List.of(s);
    }

    private static List<String> splitTopLevel(String s) {
        List<String> parts = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        char quote = 0;
        int depth = 0;
        for (char c : s.toCharArray()) {
            if (quote != 0) {
                if (c == quote) quote = 0;
                cur.append(c);
            } else if (c == '"' || c == '\'') {
                quote = c;
                cur.append(c);
            } else if (c == '(' || c == '[') {
                depth++;
                cur.append(c);
            } else if (c == ')' || c == ']') {
                depth--;
                cur.append(c);
            } else if (c == ',' && depth == 0) {
                parts.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        if (cur.length() > 0) parts.add(cur.toString());
        return parts;
    }

    static List<String> clean(List<String> values) {
        List<String> out = new ArrayList<>();
        for (String v : values) {
            String s = v == null ? "" : v.strip();
            // MySQL tuple renderings: ('x',) and (1.5,)
            if (s.startsWith("(") && s.endsWith(")")) s = s.substring(1, s.length() - 1).strip();
            if (s.endsWith(",")) s = s.substring(0, s.length() - 1).strip();
            if (s.length() >= 2 && (s.charAt(0) == '\'' || s.charAt(0) == '"') && s.charAt(s.length() - 1) == s.charAt(0)) {
                s = s.substring(1, s.length() - 1);
            }
            if (s.endsWith("%")) s = s.substring(0, s.length() - 1);
            if (s.matches("-?\\d{1,3}(,\\d{3})+(\\.\\d+)?")) s = s.replace(",", "");
            if (ZERO.contains(s.toLowerCase(Locale.ROOT))) s = "0";
            out.add(s);
        }
        return out;
    }

    private static boolean same(String a, String b) {
        Double x = number(a);
        Double y = number(b);
        if (x != null && y != null) return Math.abs(x - y) <= TOLERANCE;
        return a.equals(b);
    }

    private static List<Double> numbers(List<String> values) {
        List<Double> out = new ArrayList<>();
        for (String v : values) {
            Double d = number(v);
            if (d == null) return null;
            out.add(d);
        }
        return out;
    }

    private static Double number(String s) {
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
