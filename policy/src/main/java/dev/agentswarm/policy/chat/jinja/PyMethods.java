package dev.agentswarm.policy.chat.jinja;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The methods a template may call on strings, dicts and lists ({@code s.startswith('<')},
 * {@code d.get('k', 'x')}, {@code d.items()}). As in transformers' immutable sandbox, methods that
 * change a list or dict ({@code append}, {@code pop}, {@code update}…) are refused.
 */
final class PyMethods {

    private static final Set<String> MUTATING = Set.of("append", "extend", "insert", "pop", "remove", "clear", "sort",
            "reverse", "update", "setdefault", "popitem", "__setitem__", "__delitem__");

    private PyMethods() {}

    /** The bound method {@code o.name}, or null when {@code o} has no such method. */
    static PyCallable bind(Object o, String name) {
        if (o instanceof String s) return stringMethod(s, name);
        if (o instanceof Map<?, ?> m) return dictMethod(m, name);
        if (o instanceof List<?> l) return listMethod(l, name);
        return null;
    }

    private static Object arg(List<Object> args, Map<String, Object> kwargs, int i, String name, Object dflt) {
        if (i < args.size()) return args.get(i);
        return kwargs.getOrDefault(name, dflt);
    }

    private static String strArg(List<Object> args, Map<String, Object> kwargs, int i, String name, String method) {
        Object v = arg(args, kwargs, i, name, null);
        if (v == null) throw new TemplateError(method + "() missing argument '" + name + "'");
        return PyStrings.requireStr(v, method);
    }

    private static long intArg(List<Object> args, Map<String, Object> kwargs, int i, String name, long dflt) {
        Object v = arg(args, kwargs, i, name, dflt);
        return Py.toLong(v);
    }

    private static PyCallable stringMethod(String s, String name) {
        return switch (name) {
            case "startswith", "endswith" -> (a, k) -> PyStrings.startsOrEnds(s, arg(a, k, 0, "prefix", null),
                    arg(a, k, 1, "start", null), arg(a, k, 2, "end", null), name.equals("startswith"));
            case "strip" -> (a, k) -> PyStrings.strip(s, arg(a, k, 0, "chars", null), true, true);
            case "lstrip" -> (a, k) -> PyStrings.strip(s, arg(a, k, 0, "chars", null), true, false);
            case "rstrip" -> (a, k) -> PyStrings.strip(s, arg(a, k, 0, "chars", null), false, true);
            case "split" -> (a, k) -> PyStrings.split(s, arg(a, k, 0, "sep", null), intArg(a, k, 1, "maxsplit", -1));
            case "rsplit" -> (a, k) -> PyStrings.rsplit(s, arg(a, k, 0, "sep", null), intArg(a, k, 1, "maxsplit", -1));
            case "splitlines" -> (a, k) -> splitlines(s);
            case "replace" -> (a, k) -> PyStrings.replace(s, strArg(a, k, 0, "old", name), strArg(a, k, 1, "new", name),
                    intArg(a, k, 2, "count", -1));
            case "upper" -> (a, k) -> s.toUpperCase(Locale.ROOT);
            case "lower" -> (a, k) -> s.toLowerCase(Locale.ROOT);
            case "title" -> (a, k) -> PyStrings.title(s);
            case "capitalize" -> (a, k) -> PyStrings.capitalize(s);
            case "find" -> (a, k) -> PyStrings.find(s, strArg(a, k, 0, "sub", name), false);
            case "rfind" -> (a, k) -> PyStrings.find(s, strArg(a, k, 0, "sub", name), true);
            case "index", "rindex" -> (a, k) -> {
                long i = PyStrings.find(s, strArg(a, k, 0, "sub", name), name.equals("rindex"));
                if (i < 0) throw new TemplateError("substring not found");
                return i;
            };
            case "count" -> (a, k) -> PyStrings.count(s, strArg(a, k, 0, "sub", name));
            case "join" -> (a, k) -> {
                StringBuilder sb = new StringBuilder();
                List<Object> items = Py.iterate(arg(a, k, 0, "iterable", null));
                for (int i = 0; i < items.size(); i++) {
                    if (i > 0) sb.append(s);
                    sb.append(PyStrings.requireStr(items.get(i), "join"));
                }
                return sb.toString();
            };
            case "format" -> (a, k) -> PyStrings.format(s, a, k);
            case "isdigit", "isnumeric", "isdecimal" -> (a, k) -> !s.isEmpty() && s.codePoints().allMatch(Character::isDigit);
            case "isalpha" -> (a, k) -> !s.isEmpty() && s.codePoints().allMatch(Character::isLetter);
            case "isalnum" -> (a, k) -> !s.isEmpty() && s.codePoints().allMatch(Character::isLetterOrDigit);
            case "isspace" -> (a, k) -> !s.isEmpty() && s.chars().allMatch(Py::isSpace);
            case "isupper" -> (a, k) -> s.codePoints().anyMatch(Character::isUpperCase) && !s.codePoints().anyMatch(Character::isLowerCase);
            case "islower" -> (a, k) -> s.codePoints().anyMatch(Character::isLowerCase) && !s.codePoints().anyMatch(Character::isUpperCase);
            case "removeprefix" -> (a, k) -> {
                String p = strArg(a, k, 0, "prefix", name);
                return s.startsWith(p) ? s.substring(p.length()) : s;
            };
            case "removesuffix" -> (a, k) -> {
                String p = strArg(a, k, 0, "suffix", name);
                return !p.isEmpty() && s.endsWith(p) ? s.substring(0, s.length() - p.length()) : s;
            };
            case "partition", "rpartition" -> (a, k) -> {
                String sep = strArg(a, k, 0, "sep", name);
                int at = name.equals("partition") ? s.indexOf(sep) : s.lastIndexOf(sep);
                if (at < 0) return name.equals("partition") ? new PyTuple(List.of(s, "", "")) : new PyTuple(List.of("", "", s));
                return new PyTuple(List.of(s.substring(0, at), sep, s.substring(at + sep.length())));
            };
            default -> null;
        };
    }

    private static List<Object> splitlines(String s) {
        List<Object> out = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean br = c == '\n' || c == '\r' || c == 0x0b || c == 0x0c || c == 0x1c || c == 0x1d || c == 0x1e
                    || c == 0x85 || c == 0x2028 || c == 0x2029;
            if (!br) continue;
            out.add(s.substring(start, i));
            if (c == '\r' && i + 1 < s.length() && s.charAt(i + 1) == '\n') i++;
            start = i + 1;
        }
        if (start < s.length()) out.add(s.substring(start));
        return out;
    }

    private static PyCallable dictMethod(Map<?, ?> m, String name) {
        if (MUTATING.contains(name)) return refused("dict", name);
        return switch (name) {
            case "get" -> (a, k) -> {
                Object key = arg(a, k, 0, "key", null);
                for (var e : m.entrySet()) if (Py.eq(e.getKey(), key)) return e.getValue();
                return arg(a, k, 1, "default", null);
            };
            case "items" -> (a, k) -> {
                List<Object> out = new ArrayList<>();
                m.forEach((key, v) -> out.add(new PyTuple(java.util.Arrays.asList(key, v))));
                return out;
            };
            case "keys" -> (a, k) -> new ArrayList<Object>(m.keySet());
            case "values" -> (a, k) -> new ArrayList<Object>(m.values());
            case "copy" -> (a, k) -> new java.util.LinkedHashMap<Object, Object>(m);
            default -> null;
        };
    }

    private static PyCallable listMethod(List<?> l, String name) {
        if (MUTATING.contains(name)) return refused(l instanceof PyTuple ? "tuple" : "list", name);
        return switch (name) {
            case "index" -> (a, k) -> {
                Object x = arg(a, k, 0, "value", null);
                for (int i = 0; i < l.size(); i++) if (Py.eq(l.get(i), x)) return (long) i;
                throw new TemplateError(Py.repr(x) + " is not in list");
            };
            case "count" -> (a, k) -> l.stream().filter(e -> Py.eq(e, arg(a, k, 0, "value", null))).count();
            case "copy" -> (a, k) -> new ArrayList<Object>(l);
            default -> null;
        };
    }

    private static PyCallable refused(String type, String name) {
        return (a, k) -> {
            throw new TemplateError("access to attribute '" + name + "' of '" + type + "' object is unsafe (templates may not change their inputs)");
        };
    }
}
