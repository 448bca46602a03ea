package dev.agentswarm.environments.sql;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * AgentBench DBBench's answer comparison ({@code result_processor.py}, THUDM/AgentBench @ 578c5e9f),
 * step for step. Both sides are cleaned into lists of strings: a MySQL-tuple string such as
 * {@code [('e63818…',)]} is parsed, list-looking strings are evaluated as Python literals (or, where
 * that fails, split by hand on commas outside quotes), quotes are stripped, a trailing {@code %} is
 * dropped, thousands separators removed, and {@code none/null/undefined/nan/inf/infinity/""} become
 * {@code "0"}. Then, for queries: one value each side compares as floats within 0.01 when both
 * parse, else as strings; several values compare one-to-one within 0.01 (greedily, in order) when
 * all parse as floats, else as sets. Modifications (INSERT/UPDATE/DELETE) compare the cleaned table
 * hashes for equality.
 */
public final class AnswerMatcher {

    /** The float tolerance of {@code _float_equal}. */
    public static final double TOLERANCE = 1e-2;

    private static final Map<String, String> SPECIAL = Map.of("none", "0", "null", "0", "undefined", "0", "nan", "0",
            "inf", "0", "infinity", "0", "-inf", "0", "-infinity", "0", "", "0");
    private static final String QUOTES = "'\"";

    private AnswerMatcher() {}

    /** Whether a DBBench type is scored by the table hash rather than the answer. */
    public static boolean isModification(String type) {
        return "INSERT".equals(type) || "UPDATE".equals(type) || "DELETE".equals(type);
    }

    /**
     * {@code compare_results(answer, ground_truth, type)}. Each side is a {@code List<String>} (a
     * committed answer list, a gold label list), a {@code String} (a final-answer text, a hash, an
     * {@code answer_md5}) or null.
     */
    public static boolean matches(Object answer, Object gold, String type) {
        try {
            List<String> a = clean(answer);
            List<String> g = clean(gold);
            if (a == null || g == null) return false; // Python: len(None) raises, the scorer answers False
            if (isModification(type)) return a.equals(g);
            if (a.size() == 1 && g.size() == 1) {
                String av = a.get(0);
                String gv = g.get(0);
                if (av.equals("0") && gv.equals("0")) return true;
                Double af = PythonValues.parseFloat(av);
                Double gf = PythonValues.parseFloat(gv);
                if (af != null && gf != null) return floatEqual(af, gf);
                return av.equals(gv);
            }
            if (allFloats(a) && allFloats(g)) {
                if (a.size() != g.size()) return false;
                boolean[] used = new boolean[g.size()];
                for (String x : a) {
                    boolean matched = false;
                    for (int i = 0; i < g.size(); i++) {
                        if (!used[i] && floatEqual(PythonValues.parseFloat(x), PythonValues.parseFloat(g.get(i)))) {
                            used[i] = true;
                            matched = true;
                            break;
                        }
                    }
                    if (!matched) return false;
                }
                return true;
            }
            return new HashSet<>(a).equals(new HashSet<>(g));
        } catch (RuntimeException e) {
            return false; // the scorer's own catch-all
        }
    }

    /**
     * {@code _clean_answer}: the cleaned values, or null where Python's function falls through and
     * returns None (a list-looking string that evaluates to something other than a list).
     */
    public static List<String> clean(Object answer) {
        if (answer == null) return List.of("0");
        if (answer instanceof List<?> list) return cleanItems(list);
        if (!(answer instanceof String text)) return List.of(normalize(stripQuotes(PythonValues.str(answer))));
        List<String> mysql = mysqlResult(text);
        if (mysql != null) return mysql.stream().map(AnswerMatcher::normalize).toList();
        String s = PythonValues.strip(text);
        if (!(s.startsWith("[") && s.endsWith("]"))) return List.of(normalize(stripQuotes(s)));
        Object evaluated;
        try {
            evaluated = PythonValues.evalLiteral(s);
        } catch (IllegalArgumentException e) {
            return manualSplit(s.substring(1, s.length() - 1));
        }
        return evaluated instanceof List<?> l ? cleanItems(l) : null;
    }

    /** {@code _normalize_special_values}. */
    public static String normalize(String value) {
        if (value == null) return "0";
        String s = PythonValues.strip(value);
        if (s.endsWith("%")) return PythonValues.strip(s.substring(0, s.length() - 1));
        if (s.indexOf(',') >= 0 && !s.startsWith("[") && !s.endsWith("]")) s = s.replace(",", "");
        return SPECIAL.getOrDefault(s.toLowerCase(Locale.ROOT), s);
    }

    /** Items of a list: a one-value tuple gives its value, anything else its {@code str}. */
    private static List<String> cleanItems(List<?> items) {
        List<String> out = new ArrayList<>(items.size());
        for (Object item : items) {
            Object v = item instanceof PythonValues.Tuple t && t.items().size() == 1 ? t.items().get(0) : item;
            out.add(normalize(stripQuotes(PythonValues.str(v))));
        }
        return out;
    }

    /** {@code _clean_mysql_result}: values of {@code [(v,), …]}, or null when the text is not that shape. */
    private static List<String> mysqlResult(String text) {
        if (!(text.startsWith("[") && text.endsWith("]"))) return null;
        try {
            Object parsed = PythonValues.evalLiteral(text);
            if (parsed instanceof List<?> l && l.stream().allMatch(x -> x instanceof PythonValues.Tuple)) {
                List<String> values = new ArrayList<>();
                for (Object item : l) {
                    List<Object> tuple = ((PythonValues.Tuple) item).items();
                    if (tuple.size() == 1) values.add(stripQuotes(PythonValues.str(tuple.get(0))));
                }
                return values;
            }
        } catch (IllegalArgumentException e) {
            // as the scorer: fall back to the single-tuple reading
        }
        String inner = PythonValues.strip(text, "[]");
        if (count(inner, '(') == 1 && inner.startsWith("(") && inner.endsWith(",)")) {
            return List.of(stripQuotes(inner.substring(1, inner.length() - 2)));
        }
        return null;
    }

    /** The scorer's hand split of a list body that {@code eval} refused: commas outside quotes, quotes dropped. */
    private static List<String> manualSplit(String body) {
        List<String> items = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean inQuotes = false;
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (c == '"' || c == '\'') {
                inQuotes = !inQuotes;
            } else if (c == ',' && !inQuotes) {
                if (current.length() > 0) {
                    items.add(normalize(stripQuotes(current.toString())));
                    current.setLength(0);
                }
            } else {
                current.append(c);
            }
        }
        if (current.length() > 0) items.add(normalize(stripQuotes(current.toString())));
        return items;
    }

    /** {@code str(x).strip().strip("'\"")}. */
    private static String stripQuotes(String s) {
        return PythonValues.strip(PythonValues.strip(s), QUOTES);
    }

    private static boolean allFloats(List<String> values) {
        for (String v : values) if (PythonValues.parseFloat(v) == null) return false;
        return true;
    }

    private static boolean floatEqual(double a, double b) {
        return Math.abs(a - b) <= TOLERANCE;
    }

    private static int count(String s, char c) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) if (s.charAt(i) == c) n++;
        return n;
    }
}
