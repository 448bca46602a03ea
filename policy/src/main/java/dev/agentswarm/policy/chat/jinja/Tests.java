package dev.agentswarm.policy.chat.jinja;

import java.util.List;
import java.util.Map;

/** Jinja2's tests ({@code x is string}, {@code x is not none}, {@code n is divisibleby 3}…). */
final class Tests {

    private Tests() {}

    static boolean apply(String name, Object v, List<Object> args) {
        return switch (name) {
            case "defined" -> !(v instanceof Undefined);
            case "undefined" -> v instanceof Undefined;
            case "none" -> v == null;
            case "string" -> v instanceof String;
            case "number" -> Py.isNumber(v);
            case "integer" -> v instanceof Long;
            case "float" -> v instanceof Double;
            case "boolean" -> v instanceof Boolean;
            case "true" -> Boolean.TRUE.equals(v);
            case "false" -> Boolean.FALSE.equals(v);
            case "mapping" -> v instanceof Map;
            case "iterable" -> Py.isIterable(v);
            case "sequence" -> v instanceof String || v instanceof List || v instanceof Map;
            case "callable" -> v instanceof PyCallable;
            case "odd" -> Py.toLong(v) % 2 != 0;
            case "even" -> Py.toLong(v) % 2 == 0;
            case "divisibleby" -> Py.toLong(v) % Py.toLong(arg(args, 0, name)) == 0;
            case "lower" -> Py.str(v).codePoints().anyMatch(Character::isLowerCase) && Py.str(v).codePoints().noneMatch(Character::isUpperCase);
            case "upper" -> Py.str(v).codePoints().anyMatch(Character::isUpperCase) && Py.str(v).codePoints().noneMatch(Character::isLowerCase);
            case "eq", "equalto", "==" -> Py.eq(v, arg(args, 0, name));
            case "ne", "!=" -> !Py.eq(v, arg(args, 0, name));
            case "lt", "lessthan", "<" -> Py.compare(v, arg(args, 0, name), "<") < 0;
            case "le", "<=" -> Py.compare(v, arg(args, 0, name), "<=") <= 0;
            case "gt", "greaterthan", ">" -> Py.compare(v, arg(args, 0, name), ">") > 0;
            case "ge", ">=" -> Py.compare(v, arg(args, 0, name), ">=") >= 0;
            case "in" -> Py.contains(arg(args, 0, name), v);
            case "sameas" -> {
                Object o = arg(args, 0, name);
                yield v == o || (v instanceof Boolean && v.equals(o));
            }
            case "escaped" -> false;
            default -> throw new TemplateError("no test named '" + name + "'");
        };
    }

    private static Object arg(List<Object> args, int i, String test) {
        if (i >= args.size()) throw new TemplateError("test '" + test + "' needs an argument");
        return args.get(i);
    }
}
