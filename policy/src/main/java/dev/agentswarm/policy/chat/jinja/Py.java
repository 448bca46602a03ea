package dev.agentswarm.policy.chat.jinja;

import dev.agentswarm.core.json.PythonText;
import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Python's value semantics for template values, so that a template renders as under Python Jinja2:
 * None/True/False print as such, {@code /} gives a float, {@code %} follows the divisor's sign,
 * strings are sequences of code points, {@code 1 == 1.0 == True}, lists and dicts print as their repr.
 * Values are null (None), Boolean, Long, Double, String, List, Map, {@link PyTuple}, {@link Undefined},
 * {@link Namespace}, {@link LoopInfo} and {@link PyCallable}.
 */
final class Py {

    private Py() {}

    // ---- conversion from JSON ----

    static Object fromJson(JsonNode n) {
        if (n == null || n.isNull() || n.isMissingNode()) return null;
        if (n.isTextual()) return n.asText();
        if (n.isBoolean()) return n.asBoolean();
        if (n.isIntegralNumber()) return n.canConvertToLong() ? (Object) n.asLong() : (Object) n.asDouble();
        if (n.isNumber()) return n.asDouble();
        if (n.isArray()) {
            List<Object> out = new ArrayList<>(n.size());
            for (JsonNode e : n) out.add(fromJson(e));
            return out;
        }
        Map<Object, Object> out = new LinkedHashMap<>();
        n.fields().forEachRemaining(e -> out.put(e.getKey(), fromJson(e.getValue())));
        return out;
    }

    /** Java values a caller passes (Integer, JsonNode, …) as template values. */
    static Object fromJava(Object o) {
        if (o instanceof JsonNode j) return fromJson(j);
        if (o instanceof Integer || o instanceof Short || o instanceof Byte) return ((Number) o).longValue();
        if (o instanceof Float f) return f.doubleValue();
        if (o instanceof Map<?, ?> m) {
            Map<Object, Object> out = new LinkedHashMap<>();
            m.forEach((k, v) -> out.put(k, fromJava(v)));
            return out;
        }
        if (o instanceof List<?> l && !(o instanceof PyTuple)) {
            List<Object> out = new ArrayList<>(l.size());
            for (Object e : l) out.add(fromJava(e));
            return out;
        }
        return o;
    }

    static Long parseInt(String digits) {
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw new TemplateError("integer too large: " + digits);
        }
    }

    // ---- whitespace as Python's str.isspace ----

    static boolean isSpace(int c) {
        return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20) || c == 0x85 || c == 0xa0 || c == 0x1680
                || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000;
    }

    static String strip(String s) {
        return rstrip(lstrip(s));
    }

    static String lstrip(String s) {
        int i = 0;
        while (i < s.length() && isSpace(s.charAt(i))) i++;
        return s.substring(i);
    }

    static String rstrip(String s) {
        int e = s.length();
        while (e > 0 && isSpace(s.charAt(e - 1))) e--;
        return s.substring(0, e);
    }

    // ---- truth, text ----

    static boolean truthy(Object o) {
        if (o == null || o instanceof Undefined) return false;
        if (o instanceof Boolean b) return b;
        if (o instanceof Long l) return l != 0;
        if (o instanceof Double d) return d != 0.0;
        if (o instanceof String s) return !s.isEmpty();
        if (o instanceof List<?> l) return !l.isEmpty();
        if (o instanceof Map<?, ?> m) return !m.isEmpty();
        return true;
    }

    /** Python's {@code str(o)}; undefined prints as nothing. */
    static String str(Object o) {
        if (o instanceof String s) return s;
        if (o instanceof Undefined) return "";
        return repr(o);
    }

    static String repr(Object o) {
        if (o == null) return "None";
        if (o instanceof Boolean b) return b ? "True" : "False";
        if (o instanceof Long l) return l.toString();
        if (o instanceof Double d) return PythonText.floatRepr(d);
        if (o instanceof String s) return stringRepr(s);
        if (o instanceof Undefined) return "";
        if (o instanceof PyTuple t) {
            StringBuilder sb = new StringBuilder("(");
            for (int i = 0; i < t.size(); i++) sb.append(i > 0 ? ", " : "").append(repr(t.get(i)));
            return sb.append(t.size() == 1 ? ",)" : ")").toString();
        }
        if (o instanceof List<?> l) {
            StringBuilder sb = new StringBuilder("[");
            for (int i = 0; i < l.size(); i++) sb.append(i > 0 ? ", " : "").append(repr(l.get(i)));
            return sb.append(']').toString();
        }
        if (o instanceof Map<?, ?> m) {
            StringBuilder sb = new StringBuilder("{");
            boolean first = true;
            for (var e : m.entrySet()) {
                sb.append(first ? "" : ", ").append(repr(e.getKey())).append(": ").append(repr(e.getValue()));
                first = false;
            }
            return sb.append('}').toString();
        }
        return o.toString();
    }

    static String stringRepr(String s) {
        char quote = s.indexOf('\'') >= 0 && s.indexOf('"') < 0 ? '"' : '\'';
        StringBuilder sb = new StringBuilder().append(quote);
        s.codePoints().forEach(c -> {
            if (c == quote || c == '\\') sb.append('\\').appendCodePoint(c);
            else if (c == '\n') sb.append("\\n");
            else if (c == '\r') sb.append("\\r");
            else if (c == '\t') sb.append("\\t");
            else if (c < 0x20 || c == 0x7f) sb.append(String.format("\\x%02x", c));
            else if (!printable(c)) sb.append(c <= 0xff ? String.format("\\x%02x", c) : c <= 0xffff ? String.format("\\u%04x", c) : String.format("\\U%08x", c));
            else sb.appendCodePoint(c);
        });
        return sb.append(quote).toString();
    }

    private static boolean printable(int c) {
        if (c == ' ') return true;
        int t = Character.getType(c);
        return !(isSpace(c) || t == Character.CONTROL || t == Character.FORMAT || t == Character.SURROGATE
                || t == Character.PRIVATE_USE || t == Character.UNASSIGNED || t == Character.LINE_SEPARATOR
                || t == Character.PARAGRAPH_SEPARATOR || t == Character.SPACE_SEPARATOR);
    }

    static String typeName(Object o) {
        if (o == null) return "NoneType";
        if (o instanceof Boolean) return "bool";
        if (o instanceof Long) return "int";
        if (o instanceof Double) return "float";
        if (o instanceof String) return "str";
        if (o instanceof PyTuple) return "tuple";
        if (o instanceof List) return "list";
        if (o instanceof Map) return "dict";
        if (o instanceof Undefined) return "Undefined";
        if (o instanceof Namespace) return "Namespace";
        if (o instanceof LoopInfo) return "LoopContext";
        if (o instanceof PyCallable) return "function";
        return o.getClass().getSimpleName();
    }

    // ---- comparison ----

    static boolean isNumber(Object o) {
        return o instanceof Long || o instanceof Double || o instanceof Boolean;
    }

    static double toDouble(Object o) {
        if (o instanceof Boolean b) return b ? 1 : 0;
        return ((Number) o).doubleValue();
    }

    static long toLong(Object o) {
        if (o instanceof Boolean b) return b ? 1 : 0;
        return ((Number) o).longValue();
    }

    static boolean isIntegral(Object o) {
        return o instanceof Long || o instanceof Boolean;
    }

    static boolean eq(Object a, Object b) {
        if (a == b) return true;
        if (a == null || b == null) return false;
        if (a instanceof Undefined || b instanceof Undefined) return a instanceof Undefined && b instanceof Undefined;
        if (isNumber(a) && isNumber(b)) {
            if (isIntegral(a) && isIntegral(b)) return toLong(a) == toLong(b);
            return toDouble(a) == toDouble(b);
        }
        if (a instanceof String || b instanceof String) return a.equals(b);
        if (a instanceof List<?> x && b instanceof List<?> y) {
            if ((a instanceof PyTuple) != (b instanceof PyTuple) || x.size() != y.size()) return false;
            for (int i = 0; i < x.size(); i++) if (!eq(x.get(i), y.get(i))) return false;
            return true;
        }
        if (a instanceof Map<?, ?> x && b instanceof Map<?, ?> y) {
            if (x.size() != y.size()) return false;
            for (var e : x.entrySet()) {
                if (!y.containsKey(e.getKey()) || !eq(e.getValue(), y.get(e.getKey()))) return false;
            }
            return true;
        }
        return a.equals(b);
    }

    static int compare(Object a, Object b, String op) {
        if (isNumber(a) && isNumber(b)) {
            if (isIntegral(a) && isIntegral(b)) return Long.compare(toLong(a), toLong(b));
            return Double.compare(toDouble(a), toDouble(b));
        }
        if (a instanceof String x && b instanceof String y) return compareCodePoints(x, y);
        if (a instanceof List<?> x && b instanceof List<?> y) {
            for (int i = 0; i < Math.min(x.size(), y.size()); i++) {
                if (!eq(x.get(i), y.get(i))) return compare(x.get(i), y.get(i), op);
            }
            return Integer.compare(x.size(), y.size());
        }
        if (a instanceof Undefined u) throw u.error();
        if (b instanceof Undefined u) throw u.error();
        throw new TemplateError("'" + op + "' not supported between instances of '" + typeName(a) + "' and '" + typeName(b) + "'");
    }

    static int compareCodePoints(String x, String y) {
        int i = 0;
        int j = 0;
        while (i < x.length() && j < y.length()) {
            int a = x.codePointAt(i);
            int b = y.codePointAt(j);
            if (a != b) return Integer.compare(a, b);
            i += Character.charCount(a);
            j += Character.charCount(b);
        }
        return Integer.compare(x.length() - i, y.length() - j);
    }

    static boolean contains(Object container, Object item) {
        if (container instanceof String s) {
            if (!(item instanceof String t)) {
                throw new TemplateError("'in <string>' requires string as left operand, not " + typeName(item));
            }
            return s.contains(t);
        }
        if (container instanceof Map<?, ?> m) {
            for (Object k : m.keySet()) if (eq(k, item)) return true;
            return false;
        }
        if (container instanceof Undefined) return false;
        for (Object e : iterate(container)) if (eq(e, item)) return true;
        return false;
    }

    // ---- arithmetic ----

    static Object binary(String op, Object a, Object b) {
        if (a instanceof Undefined u) throw u.error();
        if (b instanceof Undefined u) throw u.error();
        switch (op) {
            case "+" -> {
                if (a instanceof String x && b instanceof String y) return x + y;
                if (a instanceof List<?> x && b instanceof List<?> y && !(a instanceof PyTuple) && !(b instanceof PyTuple)) {
                    List<Object> out = new ArrayList<>(x);
                    out.addAll(y);
                    return out;
                }
                if (a instanceof PyTuple x && b instanceof PyTuple y) {
                    List<Object> out = new ArrayList<>(x);
                    out.addAll(y);
                    return new PyTuple(out);
                }
                if (isNumber(a) && isNumber(b)) {
                    return isIntegral(a) && isIntegral(b) ? (Object) Math.addExact(toLong(a), toLong(b)) : (Object) (toDouble(a) + toDouble(b));
                }
            }
            case "-" -> {
                if (isNumber(a) && isNumber(b)) {
                    return isIntegral(a) && isIntegral(b) ? (Object) (toLong(a) - toLong(b)) : (Object) (toDouble(a) - toDouble(b));
                }
            }
            case "*" -> {
                if (isNumber(a) && isNumber(b)) {
                    return isIntegral(a) && isIntegral(b) ? (Object) (toLong(a) * toLong(b)) : (Object) (toDouble(a) * toDouble(b));
                }
                if (a instanceof String s && isIntegral(b)) return s.repeat((int) Math.max(0, toLong(b)));
                if (b instanceof String s && isIntegral(a)) return s.repeat((int) Math.max(0, toLong(a)));
                if (a instanceof List<?> l && isIntegral(b)) {
                    List<Object> out = new ArrayList<>();
                    for (long i = 0; i < toLong(b); i++) out.addAll(l);
                    return out;
                }
            }
            case "/" -> {
                if (isNumber(a) && isNumber(b)) {
                    if (toDouble(b) == 0) throw new TemplateError("division by zero");
                    return toDouble(a) / toDouble(b);
                }
            }
            case "//" -> {
                if (isNumber(a) && isNumber(b)) {
                    if (toDouble(b) == 0) throw new TemplateError("integer division or modulo by zero");
                    if (isIntegral(a) && isIntegral(b)) return Math.floorDiv(toLong(a), toLong(b));
                    return Math.floor(toDouble(a) / toDouble(b));
                }
            }
            case "%" -> {
                if (isNumber(a) && isNumber(b)) {
                    if (toDouble(b) == 0) throw new TemplateError("integer division or modulo by zero");
                    if (isIntegral(a) && isIntegral(b)) return Math.floorMod(toLong(a), toLong(b));
                    double x = toDouble(a);
                    double y = toDouble(b);
                    double r = x % y;
                    return (r != 0 && (r < 0) != (y < 0)) ? r + y : r;
                }
                if (a instanceof String s) return PyStrings.percentFormat(s, b);
            }
            case "**" -> {
                if (isNumber(a) && isNumber(b)) {
                    if (isIntegral(a) && isIntegral(b) && toLong(b) >= 0) {
                        long r = 1;
                        for (long i = 0; i < toLong(b); i++) r = Math.multiplyExact(r, toLong(a));
                        return r;
                    }
                    return Math.pow(toDouble(a), toDouble(b));
                }
            }
            case "~" -> {
                return str(a) + str(b);
            }
            default -> { }
        }
        throw new TemplateError("unsupported operand type(s) for " + op + ": '" + typeName(a) + "' and '" + typeName(b) + "'");
    }

    // ---- sequences ----

    /** The items a {@code for} loop sees: list items, dict keys, string code points; undefined is empty. */
    static List<Object> iterate(Object o) {
        if (o instanceof List<?> l) return new ArrayList<>(l);
        if (o instanceof Map<?, ?> m) return new ArrayList<>(m.keySet());
        if (o instanceof String s) {
            List<Object> out = new ArrayList<>();
            s.codePoints().forEach(c -> out.add(new String(Character.toChars(c))));
            return out;
        }
        if (o instanceof Undefined) return List.of();
        if (o instanceof Iterable<?> it) {
            List<Object> out = new ArrayList<>();
            for (Iterator<?> i = it.iterator(); i.hasNext(); ) out.add(i.next());
            return out;
        }
        throw new TemplateError("'" + typeName(o) + "' object is not iterable");
    }

    static long length(Object o) {
        if (o instanceof String s) return s.codePointCount(0, s.length());
        if (o instanceof List<?> l) return l.size();
        if (o instanceof Map<?, ?> m) return m.size();
        if (o instanceof Undefined) return 0;
        throw new TemplateError("object of type '" + typeName(o) + "' has no len()");
    }

    static boolean isIterable(Object o) {
        return o instanceof String || o instanceof List || o instanceof Map || o instanceof Undefined;
    }

    /** {@code o.name}: an attribute (a method of str/dict/list, a namespace or loop field), else the item. */
    static Object getattr(Object o, String name) {
        if (o instanceof Undefined u) throw u.error();
        if (o instanceof Namespace ns) {
            return ns.attributes.containsKey(name) ? ns.attributes.get(name) : new Undefined("'Namespace' has no attribute '" + name + "'; it");
        }
        if (o instanceof LoopInfo loop) return loop.attribute(name);
        Object method = PyMethods.bind(o, name);
        if (method != null) return method;
        if (o instanceof Map<?, ?> m && m.containsKey(name)) return m.get(name);
        return new Undefined("'" + typeName(o) + " object' has no attribute '" + name + "'; it");
    }

    /** {@code o[key]}: the item, else the attribute of that name, else undefined. */
    static Object getitem(Object o, Object key) {
        if (o instanceof Undefined u) throw u.error();
        if (o instanceof Map<?, ?> m) {
            for (var e : m.entrySet()) if (eq(e.getKey(), key)) return e.getValue();
        } else if ((o instanceof List || o instanceof String) && isIntegral(key) && !(key instanceof Boolean)) {
            long n = length(o);
            long i = toLong(key);
            if (i < 0) i += n;
            if (i >= 0 && i < n) {
                if (o instanceof List<?> l) return l.get((int) i);
                String s = (String) o;
                int at = s.offsetByCodePoints(0, (int) i);
                return new String(Character.toChars(s.codePointAt(at)));
            }
        }
        if (key instanceof String name && !(o instanceof Map)) return getattr(o, name);
        if (key instanceof String name && o instanceof Map && PyMethods.bind(o, name) != null) return PyMethods.bind(o, name);
        return new Undefined("'" + typeName(o) + " object' has no item " + repr(key) + "; it");
    }

    /** Python's {@code o[start:stop:step]} on a list or a string (code points). */
    static Object slice(Object o, Object start, Object stop, Object step) {
        if (o instanceof Undefined u) throw u.error();
        long st = step == null ? 1 : toLong(step);
        if (st == 0) throw new TemplateError("slice step cannot be zero");
        List<Object> items;
        boolean isString = o instanceof String;
        if (isString) items = iterate(o);
        else if (o instanceof List<?> l) items = new ArrayList<>(l);
        else throw new TemplateError("'" + typeName(o) + "' object is not subscriptable");
        int n = items.size();
        long lo;
        long hi;
        if (st > 0) {
            lo = start == null ? 0 : clamp(toLong(start), n, 0, n);
            hi = stop == null ? n : clamp(toLong(stop), n, 0, n);
        } else {
            lo = start == null ? n - 1 : clamp(toLong(start), n, -1, n - 1);
            hi = stop == null ? -1 : clamp(toLong(stop), n, -1, n - 1);
        }
        List<Object> out = new ArrayList<>();
        for (long i = lo; st > 0 ? i < hi : i > hi; i += st) out.add(items.get((int) i));
        if (isString) {
            StringBuilder sb = new StringBuilder();
            for (Object c : out) sb.append((String) c);
            return sb.toString();
        }
        return o instanceof PyTuple ? new PyTuple(out) : out;
    }

    private static long clamp(long i, int n, long min, long max) {
        if (i < 0) i += n;
        return Math.max(min, Math.min(max, i));
    }
}
