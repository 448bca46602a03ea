package dev.agentswarm.policy.chat.jinja;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Jinja2's built-in filters that chat templates use, plus transformers' {@code tojson}. */
final class Filters {

    private Filters() {}

    static Object apply(String name, Object v, List<Object> a, Map<String, Object> k) {
        return switch (name) {
            case "trim" -> PyStrings.strip(Py.str(v), arg(a, k, 0, "chars", null), true, true);
            case "tojson" -> new PyJson(Py.truthy(arg(a, k, 0, "ensure_ascii", false)), arg(a, k, 1, "indent", null),
                    arg(a, k, 2, "separators", null), Py.truthy(arg(a, k, 3, "sort_keys", false))).dumps(v);
            case "length", "count" -> Py.length(v);
            case "string" -> Py.str(v);
            case "lower" -> Py.str(v).toLowerCase(Locale.ROOT);
            case "upper" -> Py.str(v).toUpperCase(Locale.ROOT);
            case "capitalize" -> PyStrings.capitalize(Py.str(v));
            case "title" -> PyStrings.title(Py.str(v));
            case "safe", "e", "escape", "forceescape" -> name.equals("safe") ? v : escape(Py.str(v));
            case "first" -> {
                List<Object> items = Py.iterate(v);
                yield items.isEmpty() ? new Undefined("the first item of an empty sequence") : items.get(0);
            }
            case "last" -> {
                List<Object> items = Py.iterate(v);
                yield items.isEmpty() ? new Undefined("the last item of an empty sequence") : items.get(items.size() - 1);
            }
            case "join" -> {
                String sep = Py.str(arg(a, k, 0, "d", ""));
                Object attr = arg(a, k, 1, "attribute", null);
                StringBuilder sb = new StringBuilder();
                List<Object> items = Py.iterate(v);
                for (int i = 0; i < items.size(); i++) {
                    if (i > 0) sb.append(sep);
                    sb.append(Py.str(attr == null ? items.get(i) : attribute(items.get(i), attr)));
                }
                yield sb.toString();
            }
            case "default", "d" -> {
                Object dflt = arg(a, k, 0, "default_value", "");
                boolean bool = Py.truthy(arg(a, k, 1, "boolean", false));
                yield (v instanceof Undefined || (bool && !Py.truthy(v))) ? dflt : v;
            }
            case "list" -> Py.iterate(v);
            case "items" -> {
                if (v instanceof Undefined) yield new ArrayList<>();
                if (!(v instanceof Map<?, ?> m)) throw new TemplateError("items filter needs a mapping, not " + Py.typeName(v));
                List<Object> out = new ArrayList<>();
                m.forEach((key, val) -> out.add(new PyTuple(java.util.Arrays.asList(key, val))));
                yield out;
            }
            case "dictsort" -> {
                if (!(v instanceof Map<?, ?> m)) throw new TemplateError("dictsort filter needs a mapping");
                List<Object> out = new ArrayList<>();
                m.forEach((key, val) -> out.add(new PyTuple(java.util.Arrays.asList(key, val))));
                out.sort((x, y) -> Py.compare(sortKey(((List<?>) x).get(0), false), sortKey(((List<?>) y).get(0), false), "<"));
                yield out;
            }
            case "selectattr", "rejectattr" -> {
                Object attr = arg(a, k, 0, "attribute", null);
                List<Object> out = new ArrayList<>();
                for (Object item : Py.iterate(v)) {
                    Object value = attribute(item, attr);
                    boolean ok = a.size() > 1 ? Tests.apply(Py.str(a.get(1)), value, a.subList(2, a.size())) : Py.truthy(value);
                    if (ok == name.equals("selectattr")) out.add(item);
                }
                yield out;
            }
            case "select", "reject" -> {
                List<Object> out = new ArrayList<>();
                for (Object item : Py.iterate(v)) {
                    boolean ok = !a.isEmpty() ? Tests.apply(Py.str(a.get(0)), item, a.subList(1, a.size())) : Py.truthy(item);
                    if (ok == name.equals("select")) out.add(item);
                }
                yield out;
            }
            case "map" -> {
                List<Object> out = new ArrayList<>();
                for (Object item : Py.iterate(v)) {
                    if (k.containsKey("attribute")) {
                        Object value = attribute(item, k.get("attribute"));
                        out.add(value instanceof Undefined && k.containsKey("default") ? k.get("default") : value);
                    } else {
                        if (a.isEmpty()) throw new TemplateError("map filter needs a filter name or attribute=");
                        out.add(apply(Py.str(a.get(0)), item, a.subList(1, a.size()), Map.of()));
                    }
                }
                yield out;
            }
            case "replace" -> PyStrings.replace(Py.str(v), Py.str(arg(a, k, 0, "old", "")), Py.str(arg(a, k, 1, "new", "")),
                    arg(a, k, 2, "count", null) == null ? -1 : Py.toLong(arg(a, k, 2, "count", null)));
            case "reverse" -> {
                if (v instanceof String s) yield new StringBuilder(s).reverse().toString();
                List<Object> out = Py.iterate(v);
                Collections.reverse(out);
                yield out;
            }
            case "sort" -> {
                boolean reverse = Py.truthy(arg(a, k, 0, "reverse", false));
                boolean caseSensitive = Py.truthy(arg(a, k, 1, "case_sensitive", false));
                Object attr = arg(a, k, 2, "attribute", null);
                List<Object> out = Py.iterate(v);
                out.sort((x, y) -> Py.compare(sortKey(attr == null ? x : attribute(x, attr), caseSensitive),
                        sortKey(attr == null ? y : attribute(y, attr), caseSensitive), "<"));
                if (reverse) Collections.reverse(out);
                yield out;
            }
            case "unique" -> {
                List<Object> out = new ArrayList<>();
                for (Object item : Py.iterate(v)) {
                    boolean seen = false;
                    for (Object o : out) seen |= Py.eq(sortKey(o, false), sortKey(item, false));
                    if (!seen) out.add(item);
                }
                yield out;
            }
            case "int" -> toInt(v, arg(a, k, 0, "default", 0L));
            case "float" -> toFloat(v, arg(a, k, 0, "default", 0.0));
            case "abs" -> v instanceof Double d ? (Object) Math.abs(d) : (Object) Math.abs(Py.toLong(v));
            case "round" -> {
                long precision = Py.toLong(arg(a, k, 0, "precision", 0L));
                double scale = Math.pow(10, precision);
                yield Math.round(Py.toDouble(v) * scale) / scale;
            }
            case "sum" -> {
                Object attr = arg(a, k, 0, "attribute", null);
                Object total = arg(a, k, 1, "start", 0L);
                for (Object item : Py.iterate(v)) total = Py.binary("+", total, attr == null ? item : attribute(item, attr));
                yield total;
            }
            case "max", "min" -> {
                List<Object> items = Py.iterate(v);
                if (items.isEmpty()) yield new Undefined("the " + name + " of an empty sequence");
                Object best = items.get(0);
                for (Object o : items) {
                    int c = Py.compare(sortKey(o, false), sortKey(best, false), "<");
                    if (name.equals("max") ? c > 0 : c < 0) best = o;
                }
                yield best;
            }
            case "indent" -> indent(Py.str(v), arg(a, k, 0, "width", 4L), Py.truthy(arg(a, k, 1, "first", false)),
                    Py.truthy(arg(a, k, 2, "blank", false)));
            case "format" -> PyStrings.percentFormat(Py.str(v), a.size() == 1 ? a.get(0) : new PyTuple(new ArrayList<>(a)));
            case "attr" -> Py.getattr(v, Py.str(arg(a, k, 0, "name", "")));
            case "wordcount" -> (long) PyStrings.split(Py.str(v), null, -1).size();
            case "center" -> {
                String s = Py.str(v);
                int width = (int) Py.toLong(arg(a, k, 0, "width", 80L));
                int n = s.codePointCount(0, s.length());
                if (width <= n) yield s;
                int left = (width - n) / 2 + ((width - n) % 2 == 1 && width % 2 == 1 ? 1 : 0);
                yield " ".repeat(left) + s + " ".repeat(width - n - left);
            }
            default -> throw new TemplateError("no filter named '" + name + "'");
        };
    }

    private static Object arg(List<Object> a, Map<String, Object> k, int i, String name, Object dflt) {
        if (i < a.size()) return a.get(i);
        return k.getOrDefault(name, dflt);
    }

    /** {@code item.attr} for a dotted attribute path ({@code "function.name"}), or an integer index. */
    static Object attribute(Object item, Object attr) {
        if (attr instanceof Long) return Py.getitem(item, attr);
        Object v = item;
        for (String part : Py.str(attr).split("\\.")) {
            if (v instanceof Undefined) return v;
            v = part.chars().allMatch(Character::isDigit) && !part.isEmpty() ? Py.getitem(v, Long.parseLong(part)) : Py.getitem(v, part);
        }
        return v;
    }

    private static Object sortKey(Object o, boolean caseSensitive) {
        return !caseSensitive && o instanceof String s ? s.toLowerCase(Locale.ROOT) : o;
    }

    private static Object toInt(Object v, Object dflt) {
        if (v instanceof Long || v instanceof Boolean) return Py.toLong(v);
        if (v instanceof Double d) return (long) (double) d;
        try {
            return Long.parseLong(Py.strip(Py.str(v)).replace("_", ""));
        } catch (NumberFormatException e) {
            try {
                return (long) Double.parseDouble(Py.strip(Py.str(v)));
            } catch (NumberFormatException e2) {
                return dflt;
            }
        }
    }

    private static Object toFloat(Object v, Object dflt) {
        if (Py.isNumber(v)) return Py.toDouble(v);
        try {
            return Double.parseDouble(Py.strip(Py.str(v)));
        } catch (NumberFormatException e) {
            return dflt;
        }
    }

    private static String indent(String s, Object width, boolean first, boolean blank) {
        String pad = width instanceof String w ? w : " ".repeat((int) Py.toLong(width));
        String nl = "\n";
        StringBuilder sb = new StringBuilder();
        String[] lines = s.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            if (i > 0) sb.append(nl);
            String line = lines[i];
            boolean indentIt = (i > 0 || first) && (blank || !line.isEmpty() && !Py.strip(line).isEmpty() || (blank && line.isEmpty()));
            if (i > 0 && !blank && Py.strip(line).isEmpty()) indentIt = false;
            sb.append(indentIt ? pad : "").append(line);
        }
        return sb.toString();
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&#34;").replace("'", "&#39;");
    }

    static Map<String, Object> kwargs(List<String> names, List<Object> values) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (int i = 0; i < names.size(); i++) out.put(names.get(i), values.get(i));
        return out;
    }
}
