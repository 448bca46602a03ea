package dev.agentswarm.policy.chat.jinja;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Python's {@code str} methods that chat templates call, with Python's exact results. */
final class PyStrings {

    private PyStrings() {}

    static String strip(String s, Object chars, boolean left, boolean right) {
        if (chars == null || chars instanceof Undefined) {
            if (left) s = Py.lstrip(s);
            if (right) s = Py.rstrip(s);
            return s;
        }
        String set = requireStr(chars, "strip");
        int[] cps = s.codePoints().toArray();
        int i = 0;
        int e = cps.length;
        if (left) while (i < e && set.indexOf(Character.toString(cps[i])) >= 0) i++;
        if (right) while (e > i && set.indexOf(Character.toString(cps[e - 1])) >= 0) e--;
        return new String(cps, i, e - i);
    }

    static List<Object> split(String s, Object sep, long maxsplit) {
        List<Object> out = new ArrayList<>();
        if (sep == null) {
            int i = 0;
            int n = s.length();
            while (true) {
                while (i < n && Py.isSpace(s.charAt(i))) i++;
                if (i >= n) break;
                if (maxsplit >= 0 && out.size() >= maxsplit) {
                    out.add(Py.rstrip(s.substring(i)));
                    break;
                }
                int j = i;
                while (j < n && !Py.isSpace(s.charAt(j))) j++;
                out.add(s.substring(i, j));
                i = j;
            }
            return out;
        }
        String d = requireStr(sep, "split");
        if (d.isEmpty()) throw new TemplateError("empty separator");
        int from = 0;
        while (maxsplit < 0 || out.size() < maxsplit) {
            int at = s.indexOf(d, from);
            if (at < 0) break;
            out.add(s.substring(from, at));
            from = at + d.length();
        }
        out.add(s.substring(from));
        return out;
    }

    static List<Object> rsplit(String s, Object sep, long maxsplit) {
        if (maxsplit < 0) return split(s, sep, -1);
        List<Object> out = new ArrayList<>();
        if (sep == null) {
            int e = s.length();
            while (true) {
                while (e > 0 && Py.isSpace(s.charAt(e - 1))) e--;
                if (e <= 0) break;
                if (out.size() >= maxsplit) {
                    out.add(0, Py.lstrip(s.substring(0, e)));
                    break;
                }
                int b = e;
                while (b > 0 && !Py.isSpace(s.charAt(b - 1))) b--;
                out.add(0, s.substring(b, e));
                e = b;
            }
            return out;
        }
        String d = requireStr(sep, "rsplit");
        if (d.isEmpty()) throw new TemplateError("empty separator");
        int end = s.length();
        while (out.size() < maxsplit) {
            int at = s.lastIndexOf(d, end - d.length());
            if (at < 0) break;
            out.add(0, s.substring(at + d.length(), end));
            end = at;
        }
        out.add(0, s.substring(0, end));
        return out;
    }

    static boolean startsOrEnds(String s, Object prefix, Object start, Object end, boolean starts) {
        String part = s;
        if (start != null || end != null) part = (String) Py.slice(s, start, end, null);
        if (prefix instanceof List<?> options) {
            for (Object o : options) if (startsOrEnds(part, o, null, null, starts)) return true;
            return false;
        }
        String p = requireStr(prefix, starts ? "startswith" : "endswith");
        return starts ? part.startsWith(p) : part.endsWith(p);
    }

    static String replace(String s, String old, String replacement, long count) {
        if (count < 0) return old.isEmpty() ? insertEverywhere(s, replacement, -1) : s.replace(old, replacement);
        if (old.isEmpty()) return insertEverywhere(s, replacement, count);
        StringBuilder sb = new StringBuilder();
        int from = 0;
        long done = 0;
        while (done < count) {
            int at = s.indexOf(old, from);
            if (at < 0) break;
            sb.append(s, from, at).append(replacement);
            from = at + old.length();
            done++;
        }
        return sb.append(s.substring(from)).toString();
    }

    private static String insertEverywhere(String s, String r, long count) {
        StringBuilder sb = new StringBuilder();
        long done = 0;
        int i = 0;
        while (i <= s.length()) {
            if (count < 0 || done < count) {
                sb.append(r);
                done++;
            }
            if (i == s.length()) break;
            int c = s.codePointAt(i);
            sb.appendCodePoint(c);
            i += Character.charCount(c);
        }
        return sb.toString();
    }

    static String title(String s) {
        StringBuilder sb = new StringBuilder();
        boolean prevCased = false;
        for (int i = 0; i < s.length(); ) {
            int c = s.codePointAt(i);
            i += Character.charCount(c);
            if (prevCased) sb.append(new String(Character.toChars(c)).toLowerCase(Locale.ROOT));
            else sb.appendCodePoint(Character.toTitleCase(c));
            prevCased = Character.isUpperCase(c) || Character.isLowerCase(c) || Character.isTitleCase(c);
        }
        return sb.toString();
    }

    static String capitalize(String s) {
        if (s.isEmpty()) return s;
        int c = s.codePointAt(0);
        return new String(Character.toChars(Character.toTitleCase(c))) + s.substring(Character.charCount(c)).toLowerCase(Locale.ROOT);
    }

    static long find(String s, String sub, boolean last) {
        int at = last ? s.lastIndexOf(sub) : s.indexOf(sub);
        return at < 0 ? -1 : s.codePointCount(0, at);
    }

    static long count(String s, String sub) {
        if (sub.isEmpty()) return s.codePointCount(0, s.length()) + 1;
        long n = 0;
        for (int at = s.indexOf(sub); at >= 0; at = s.indexOf(sub, at + sub.length())) n++;
        return n;
    }

    /** {@code str.format} with {@code {}}, {@code {0}} and {@code {name}} fields (no format specs). */
    static String format(String s, List<Object> args, java.util.Map<String, Object> kwargs) {
        StringBuilder sb = new StringBuilder();
        int auto = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '{' && i + 1 < s.length() && s.charAt(i + 1) == '{') {
                sb.append('{');
                i++;
            } else if (c == '}' && i + 1 < s.length() && s.charAt(i + 1) == '}') {
                sb.append('}');
                i++;
            } else if (c == '{') {
                int close = s.indexOf('}', i);
                if (close < 0) throw new TemplateError("Single '{' encountered in format string");
                String field = s.substring(i + 1, close);
                Object v;
                if (field.isEmpty()) v = args.get(auto++);
                else if (field.chars().allMatch(Character::isDigit)) v = args.get(Integer.parseInt(field));
                else if (kwargs.containsKey(field)) v = kwargs.get(field);
                else throw new TemplateError("format field '" + field + "' not given");
                sb.append(Py.str(v));
                i = close;
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    /** {@code "…" % value} with {@code %s}, {@code %r}, {@code %d} and {@code %%}. */
    static String percentFormat(String s, Object values) {
        List<Object> args = values instanceof PyTuple t ? new ArrayList<>(t) : java.util.Collections.singletonList(values);
        StringBuilder sb = new StringBuilder();
        int next = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '%' || i + 1 >= s.length()) {
                sb.append(c);
                continue;
            }
            char k = s.charAt(++i);
            switch (k) {
                case '%' -> sb.append('%');
                case 's' -> sb.append(Py.str(args.get(next++)));
                case 'r' -> sb.append(Py.repr(args.get(next++)));
                case 'd', 'i' -> sb.append(Py.toLong(args.get(next++)));
                default -> throw new TemplateError("unsupported format character '" + k + "'");
            }
        }
        return sb.toString();
    }

    static String requireStr(Object o, String method) {
        if (o instanceof String s) return s;
        throw new TemplateError(method + "() argument must be str, not " + Py.typeName(o));
    }
}
