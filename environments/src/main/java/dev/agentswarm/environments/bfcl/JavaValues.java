package dev.agentswarm.environments.bfcl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * BFCL's reading of a Java argument: a function-calling model writes every Java value as a string of
 * Java source ({@code "42L"}, {@code "new ArrayList<>(Arrays.asList(1L, 2L))"}), which becomes a value
 * here as BFCL's converter makes it, quirks included (a {@code long} needs its {@code L}, a {@code float}
 * its {@code f}; an array's quoted strings keep their quotes; elements are split at every comma). A
 * string that does not match its type's form is returned unchanged, and then fails the type check.
 */
final class JavaValues {

    private static final int FLAGS = Pattern.UNIX_LINES | Pattern.UNICODE_CHARACTER_CLASS;
    private static final Pattern INTEGER = Pattern.compile("^-?\\d+$", FLAGS);
    private static final Pattern LONG = Pattern.compile("^-?\\d+[lL]$", FLAGS);
    private static final Pattern FLOAT = Pattern.compile("^-?\\d+(\\.\\d+)?([eE][+-]?\\d+)?[fF]$", FLAGS);
    private static final Pattern DOUBLE = Pattern.compile("^-?\\d+(\\.\\d+)?([eE][+-]?\\d+)?$", FLAGS);
    private static final Pattern ARRAYS_AS_LIST = Pattern.compile("new\\s+ArrayList<\\w*>\\(Arrays\\.asList\\((.+?)\\)\\)", FLAGS);
    private static final Pattern ARRAYLIST_ADDS = Pattern.compile("new\\s+ArrayList<\\w*>\\(\\)\\s*\\{\\{\\s*(.+?)\\s*\\}\\}",
            FLAGS | Pattern.DOTALL);
    private static final Pattern ADD = Pattern.compile("add\\((.+?)\\)", FLAGS);
    private static final Pattern EMPTY_ARRAYLIST = Pattern.compile("new\\s+ArrayList<\\w*>\\(\\)", FLAGS);
    private static final Pattern ARRAY = Pattern.compile("new\\s+\\w+\\[\\]\\s*\\{(.*?)\\}", FLAGS);
    private static final Pattern HASHMAP_PUTS = Pattern.compile("new\\s+HashMap<.*?>\\s*\\(\\)\\s*\\{\\s*\\{?\\s*(.*?)\\s*\\}?\\s*\\}",
            FLAGS | Pattern.DOTALL);
    private static final Pattern PUT = Pattern.compile("put\\(\"(.*?)\",\\s*(.*?)\\)", FLAGS);
    private static final Pattern EMPTY_HASHMAP = Pattern.compile("new\\s+HashMap<.*?>\\s*\\(\\)", FLAGS);

    private JavaValues() {}

    /** {@code source} as a value of Java type {@code type} (items of {@code itemType} for lists, or null). */
    static JsonNode convert(String source, String type, String itemType) {
        try {
            return convertOrFail(source, type, itemType);
        } catch (NumberFormatException e) { // digits Python reads and Java does not: left as given, as an unmatched form is
            return text(source);
        }
    }

    private static JsonNode convertOrFail(String source, String type, String itemType) {
        return switch (type) {
            case "byte", "short", "integer" -> INTEGER.matcher(source).lookingAt() ? BfclValues.integer(new BigInteger(source.strip())) : text(source);
            case "long" -> LONG.matcher(source).lookingAt() ? BfclValues.integer(new BigInteger(withoutSuffix(source))) : text(source);
            case "float" -> FLOAT.matcher(source).lookingAt() ? BfclValues.decimal(Double.parseDouble(withoutSuffix(source))) : text(source);
            case "double" -> DOUBLE.matcher(source).lookingAt() ? BfclValues.decimal(Double.parseDouble(source.strip())) : text(source);
            case "boolean" -> source.equals("true") || source.equals("false") ? BfclValues.bool(source.equals("true")) : text(source);
            // BFCL's char pattern cannot match anything: a char stays the string it was given.
            case "char", "String", "any" -> text(source);
            case "ArrayList" -> arrayList(source, itemType);
            case "Array" -> array(source, itemType);
            case "HashMap" -> hashMap(source);
            case "Set", "Hashtable", "Queue", "Stack" -> throw new IllegalArgumentException("BFCL does not convert Java " + type + " values");
            default -> throw new IllegalArgumentException("unsupported Java type " + type);
        };
    }

    private static JsonNode arrayList(String source, String itemType) {
        Matcher m = ARRAYS_AS_LIST.matcher(source);
        if (m.find()) {
            ArrayNode out = BfclValues.list();
            for (String part : m.group(1).split(",", -1)) out.add(item(part.strip(), itemType));
            return out;
        }
        m = ARRAYLIST_ADDS.matcher(source);
        if (m.find()) {
            ArrayNode out = BfclValues.list();
            Matcher add = ADD.matcher(m.group(1));
            while (add.find()) out.add(item(add.group(1).strip(), itemType));
            return out;
        }
        if (EMPTY_ARRAYLIST.matcher(source).find()) return BfclValues.list();
        return text(source);
    }

    /** An ArrayList element: a char's or String's quotes are cut off (the first and last characters), others converted. */
    private static JsonNode item(String part, String itemType) {
        if ("char".equals(itemType) || "String".equals(itemType)) return text(inner(part));
        return itemType == null ? parse(part) : convert(part, itemType, null);
    }

    /** Python's {@code s[1:-1]}. */
    static String inner(String s) {
        return s.length() < 2 ? "" : s.substring(1, s.length() - 1);
    }

    private static JsonNode array(String source, String itemType) {
        Matcher m = ARRAY.matcher(source);
        if (!m.find()) return text(source);
        ArrayNode out = BfclValues.list();
        for (String part : m.group(1).split(",", -1)) {
            String p = part.strip();
            if (p.isEmpty()) continue;
            out.add(itemType == null ? parse(p) : convert(p, itemType, null)); // no quotes cut: "a" stays "\"a\""
        }
        return out;
    }

    private static JsonNode hashMap(String source) {
        Matcher m = HASHMAP_PUTS.matcher(source);
        if (m.find()) {
            ObjectNode out = BfclValues.NODES.objectNode();
            Matcher put = PUT.matcher(m.group(1));
            while (put.find()) out.set(put.group(1), parse(put.group(2).strip()));
            return out;
        }
        if (EMPTY_HASHMAP.matcher(source).find()) return BfclValues.NODES.objectNode();
        return text(source);
    }

    /** A value written without a declared type (a HashMap's values, an untyped array's items). */
    static JsonNode parse(String t) {
        if (t.equals("true") || t.equals("false")) return BfclValues.bool(t.equals("true"));
        if (t.startsWith("\"") && t.endsWith("\"")) return text(inner(t));
        try {
            if (LONG.matcher(t).lookingAt()) return BfclValues.integer(new BigInteger(withoutSuffix(t)));
            if (FLOAT.matcher(t).lookingAt()) return BfclValues.decimal(Double.parseDouble(withoutSuffix(t)));
        } catch (NumberFormatException e) {
            return text(t);
        }
        return PythonNumbers.parse(t);
    }

    /** The number before its {@code L} or {@code f} ({@code $} also matched before a final newline). */
    private static String withoutSuffix(String s) {
        String t = s.strip();
        return t.substring(0, t.length() - 1);
    }

    private static JsonNode text(String s) {
        return BfclValues.text(s);
    }
}
