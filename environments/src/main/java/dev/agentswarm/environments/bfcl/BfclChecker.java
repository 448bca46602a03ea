package dev.agentswarm.environments.bfcl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.agentswarm.core.json.PythonText;
import dev.agentswarm.environments.bfcl.BfclValues.PyType;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * BFCL v4's AST checker: whether a model's function calls match one of the possible answers, with the
 * verdicts and error types of BFCL's own {@code ast_checker} (simple, multiple, parallel without order)
 * and the order in which it checks, since that decides which error is reported. Values are compared as
 * Python compares them ({@link BfclValues}); Java and JavaScript arguments arrive as strings of source
 * and are converted first ({@link JavaValues}, {@link JsValues}). Function names are compared as given:
 * agentswarm maps names an API would refuse back to the offered ones before a trajectory is scored.
 */
public final class BfclChecker {

    /** A decoded call: the function's name and its arguments in the order the model gave them. */
    public record Call(String name, JsonNode arguments) {}

    /** The verdict, and when it is not valid BFCL's error type and message. */
    public record Verdict(boolean valid, String errorType, String message) {
        static final Verdict VALID = new Verdict(true, null, null);

        static Verdict invalid(String type, String message) {
            return new Verdict(false, type, message);
        }
    }

    public enum Language { PYTHON, JAVA, JAVASCRIPT }

    private static final Pattern STANDARDIZE = Pattern.compile("[ ,./\\-_*^]");

    private BfclChecker() {}

    /**
     * Checks {@code calls} against {@code answers} (BFCL's ground truth: a list of {@code {name: {param:
     * [acceptable values]}}}) with the checker BFCL picks for {@code category}.
     */
    public static Verdict check(List<JsonNode> functions, List<Call> calls, ArrayNode answers, Language language, String category) {
        if (category.contains("parallel")) return parallelNoOrder(functions, calls, answers, language);
        if (category.contains("multiple")) return multiple(functions, calls, answers, language);
        if (calls.size() != 1) return Verdict.invalid("simple_function_checker:wrong_count", "Wrong number of functions.");
        return simple(functions.get(0), calls.get(0), answers.get(0), language);
    }

    static Verdict multiple(List<JsonNode> functions, List<Call> calls, ArrayNode answers, Language language) {
        if (calls.size() != answers.size()) return Verdict.invalid("multiple_function_checker:wrong_count", "Wrong number of functions.");
        JsonNode answer = answers.get(0);
        return simple(find(functions, answer.fieldNames().next()), calls.get(0), answer, language);
    }

    static Verdict parallelNoOrder(List<JsonNode> functions, List<Call> calls, ArrayNode answers, Language language) {
        if (calls.size() != answers.size()) {
            return Verdict.invalid("parallel_function_checker_no_order:wrong_count", "Wrong number of functions.");
        }
        List<Integer> matched = new ArrayList<>();
        for (int i = 0; i < answers.size(); i++) {
            JsonNode answer = answers.get(i);
            JsonNode doc = find(functions, answer.fieldNames().next());
            List<String> errors = new ArrayList<>();
            boolean found = false;
            // First fit, as BFCL does: a loose answer may take the call a stricter one needed.
            for (int j = 0; j < calls.size() && !found; j++) {
                if (matched.contains(j)) continue;
                Verdict v = simple(doc, calls.get(j), answer, language);
                if (v.valid()) {
                    matched.add(j);
                    found = true;
                } else {
                    errors.add("model call " + j + ": " + v.errorType() + " (" + v.message() + ")");
                }
            }
            if (!found) {
                List<Integer> considered = new ArrayList<>();
                for (int j = 0; j < calls.size(); j++) if (!matched.contains(j)) considered.add(j);
                return Verdict.invalid("parallel_function_checker_no_order:cannot_find_match",
                        "Could not find a matching function among index " + considered + " of model output for index " + i
                                + " of possible answers. " + String.join("; ", errors));
            }
        }
        return Verdict.VALID;
    }

    private static JsonNode find(List<JsonNode> functions, String name) {
        for (JsonNode f : functions) if (name.equals(f.path("name").asText())) return f;
        return null;
    }

    /** BFCL's simple_function_checker: one call against one possible answer. */
    static Verdict simple(JsonNode doc, Call call, JsonNode answer, Language language) {
        if (doc == null) return Verdict.invalid("simple_function_checker:wrong_func_name", "The possible answer names no offered function.");
        JsonNode expected = answer.elements().next();
        String name = doc.path("name").asText();
        if (!name.equals(call.name())) {
            return Verdict.invalid("simple_function_checker:wrong_func_name", "Function name '" + name + "' not found in model output.");
        }
        JsonNode properties = doc.path("parameters").path("properties");
        JsonNode args = call.arguments();
        for (JsonNode required : doc.path("parameters").path("required")) {
            if (!args.has(required.asText())) {
                return Verdict.invalid("simple_function_checker:missing_required", "Missing required parameter: '" + required.asText() + "'.");
            }
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = args.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> arg = it.next();
            String param = arg.getKey();
            JsonNode value = arg.getValue();
            if (!properties.has(param) || !expected.has(param)) {
                return Verdict.invalid("simple_function_checker:unexpected_param", "Unexpected parameter: '" + param + "'.");
            }
            JsonNode details = properties.get(param);
            String declared = details.path("type").asText();
            JsonNode accepted = expected.get(param);
            PyType expectedType;
            PyType nested = null;
            try {
                switch (language) {
                    case JAVA -> {
                        expectedType = javaType(declared);
                        if (!value.isTextual()) return wrongLanguageType("type_error:java", param, value);
                        if (declared.equals("Array") || declared.equals("ArrayList") || declared.equals("array")) {
                            String item = details.path("items").path("type").asText();
                            nested = javaType(item);
                            value = JavaValues.convert(value.asText(), declared, item);
                        } else {
                            value = JavaValues.convert(value.asText(), declared, null);
                        }
                    }
                    case JAVASCRIPT -> {
                        expectedType = jsType(declared);
                        if (!value.isTextual()) return wrongLanguageType("type_error:js", param, value);
                        if (declared.equals("Array") || declared.equals("ArrayList") || declared.equals("array")) {
                            String item = details.path("items").path("type").asText();
                            nested = jsType(item);
                            value = JsValues.convert(value.asText(), declared, item);
                        } else {
                            value = JsValues.convert(value.asText(), declared, null);
                        }
                    }
                    default -> {
                        expectedType = pythonType(declared);
                        if (declared.equals("array") || declared.equals("tuple")) nested = pythonType(details.path("items").path("type").asText());
                    }
                }
            } catch (IllegalArgumentException e) { // BFCL's own checker raises here and stops the evaluation
                return Verdict.invalid("checker_error:unsupported_type", "Parameter '" + param + "': " + e.getMessage() + ".");
            }
            if (language == Language.PYTHON && declared.equals("float") && BfclValues.typeOf(value) == PyType.INT) {
                value = BfclValues.decimal(value.doubleValue());
            }
            TypeCheck type = typeCheck(param, value, accepted, declared, expectedType, nested);
            if (!type.valid) return Verdict.invalid(type.errorType, type.message);
            if (!type.variable) {
                Verdict v = null;
                if (expectedType == PyType.DICT) v = dictCheck(param, value, accepted);
                else if (expectedType == PyType.LIST && nested == PyType.DICT) v = listDictCheck(param, value, accepted);
                else if (expectedType == PyType.STR) v = stringCheck(param, value, accepted);
                else if (expectedType == PyType.LIST) v = listCheck(param, value, accepted);
                if (v != null) {
                    if (!v.valid()) return v;
                    continue;
                }
            }
            if (!BfclValues.in(value, accepted)) {
                return Verdict.invalid("value_error:others", "Invalid value for parameter '" + param + "': " + PythonText.repr(value)
                        + ". Expected one of " + PythonText.repr(accepted) + ".");
            }
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = expected.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> p = it.next();
            if (!args.has(p.getKey()) && !containsEmpty(p.getValue())) {
                return Verdict.invalid("simple_function_checker:missing_optional",
                        "Optional parameter '" + p.getKey() + "' not provided and not marked as optional.");
            }
        }
        return Verdict.VALID;
    }

    private static Verdict wrongLanguageType(String type, String param, JsonNode value) {
        return Verdict.invalid(type, "Incorrect type for parameter '" + param + "'. Expected type String, got "
                + BfclValues.typeOf(value).pythonName + ". Parameter value: " + PythonText.repr(value) + ".");
    }

    /** Python's {@code "" in x}: membership for a list, a substring test (always true) for a string. */
    private static boolean containsEmpty(JsonNode accepted) {
        if (accepted.isTextual()) return true;
        if (accepted.isArray()) {
            for (JsonNode a : accepted) if (a.isTextual() && a.asText().isEmpty()) return true;
        }
        return false;
    }

    private record TypeCheck(boolean valid, boolean variable, String errorType, String message) {}

    /** BFCL's type_checker, including its "variable" rule: a value of the answers' own type is compared as it is. */
    private static TypeCheck typeCheck(String param, JsonNode value, JsonNode accepted, String declared, PyType expected, PyType nested) {
        PyType answerType = answerType(accepted);
        boolean variable = answerType != null && answerType != expected;
        PyType got = BfclValues.typeOf(value);
        String errorType = "type_error:simple";
        String message = null;
        if (got == expected) {
            if (nested == null) return new TypeCheck(true, variable, null, null);
            for (JsonNode candidate : iterate(accepted)) {
                boolean ok = true;
                if (candidate.isArray()) {
                    for (JsonNode item : value) {
                        if (!typeCheck(param, item, candidate, nested.pythonName, nested, null).valid) {
                            ok = false;
                            break;
                        }
                    }
                }
                if (ok) return new TypeCheck(true, variable, null, null);
            }
            errorType = "type_error:nested";
            message = "Nested type checking failed for parameter '" + param + "'. Expected outer type " + declared + " with inner type "
                    + nested.pythonName + ". Parameter value: " + PythonText.repr(value) + ".";
            if (answerType != null && got == answerType) return new TypeCheck(false, true, errorType, message);
        } else if (answerType != null && got == answerType) {
            return new TypeCheck(true, true, null, null);
        }
        String simple = "Incorrect type for parameter '" + param + "'. Expected type " + declared + ", got " + got.pythonName
                + ". Parameter value: " + PythonText.repr(value) + ".";
        return new TypeCheck(false, variable, "type_error:simple", message == null ? simple : message + " " + simple);
    }

    /** The type of the first answer that is not "" (which marks a parameter that may be left out), or null. */
    private static PyType answerType(JsonNode accepted) {
        for (JsonNode a : iterate(accepted)) if (!(a.isTextual() && a.asText().isEmpty())) return BfclValues.typeOf(a);
        return null;
    }

    /** Python's iteration: a list's elements, a string's characters. */
    private static List<JsonNode> iterate(JsonNode v) {
        List<JsonNode> out = new ArrayList<>();
        if (v.isArray()) v.forEach(out::add);
        else if (v.isTextual()) v.asText().codePoints().forEach(c -> out.add(BfclValues.text(new String(Character.toChars(c)))));
        else if (v.isObject()) v.fieldNames().forEachRemaining(k -> out.add(BfclValues.text(k)));
        return out;
    }

    /** BFCL's standardize_string: without spaces and {@code ,./-_*^}, lower-cased, single quotes made double. */
    public static String standardize(String s) {
        return STANDARDIZE.matcher(s).replaceAll("").toLowerCase(Locale.ROOT).replace('\'', '"');
    }

    private static JsonNode standardized(JsonNode v) {
        return v.isTextual() ? BfclValues.text(standardize(v.asText())) : v;
    }

    static Verdict stringCheck(String param, JsonNode value, JsonNode accepted) {
        String mine = standardize(value.asText());
        for (JsonNode a : iterate(accepted)) if (a.isTextual() && standardize(a.asText()).equals(mine)) return Verdict.VALID;
        return Verdict.invalid("value_error:string", "Invalid value for parameter '" + param + "': " + PythonText.repr(value)
                + ". Expected one of " + PythonText.repr(accepted) + ". Case insensitive.");
    }

    static Verdict listCheck(String param, JsonNode value, JsonNode accepted) {
        ArrayNode mine = BfclValues.list();
        value.forEach(v -> mine.add(standardized(v)));
        for (JsonNode candidate : iterate(accepted)) {
            ArrayNode theirs = BfclValues.list();
            iterate(candidate).forEach(v -> theirs.add(standardized(v)));
            if (BfclValues.equal(mine, theirs)) return Verdict.VALID;
        }
        return Verdict.invalid("value_error:list/tuple", "Invalid value for parameter '" + param + "': " + PythonText.repr(value)
                + ". Expected one of " + PythonText.repr(accepted) + ".");
    }

    /** BFCL's dict_checker: one level deep, keys whose answers hold "" may be left out; the last candidate's error is reported. */
    static Verdict dictCheck(String param, JsonNode value, JsonNode candidates) {
        Verdict result = Verdict.invalid("dict_checker:unclear", "");
        for (JsonNode candidate : iterate(candidates)) {
            if (candidate.isTextual() && candidate.asText().isEmpty()) continue;
            String errorType = "dict_checker:unclear";
            List<String> errors = new ArrayList<>();
            boolean ok = true;
            for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (!candidate.has(e.getKey())) {
                    errors.add("Unexpected dict key parameter: '" + e.getKey() + "'.");
                    errorType = "value_error:dict_key";
                    ok = false;
                    break;
                }
                List<JsonNode> accepted = new ArrayList<>();
                for (JsonNode a : iterate(candidate.get(e.getKey()))) accepted.add(standardized(a));
                if (!BfclValues.in(standardized(e.getValue()), accepted)) {
                    errors.add("Invalid value for parameter '" + e.getKey() + "': " + PythonText.repr(e.getValue()) + ".");
                    errorType = "value_error:dict_value";
                    ok = false;
                    break;
                }
            }
            // BFCL looks for missing keys even after a wrong value, and then reports the missing key.
            for (Iterator<Map.Entry<String, JsonNode>> it = candidate.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (!value.has(e.getKey()) && !containsEmpty(e.getValue())) {
                    errors.add("Missing dict key parameter: '" + e.getKey() + "'.");
                    errorType = "value_error:dict_key";
                    ok = false;
                    break;
                }
            }
            if (ok) return Verdict.VALID;
            result = Verdict.invalid(errorType, "Parameter '" + param + "': " + String.join(" ", errors));
        }
        return result;
    }

    static Verdict listDictCheck(String param, JsonNode value, JsonNode candidates) {
        Verdict result = Verdict.invalid("list_dict_checker:unclear", "");
        for (JsonNode candidate : iterate(candidates)) {
            List<JsonNode> dicts = iterate(candidate);
            if (value.size() != dicts.size()) {
                result = Verdict.invalid("value_error:list_dict_count", "Wrong number of dictionaries in the list.");
                continue;
            }
            boolean ok = true;
            for (int i = 0; i < value.size(); i++) {
                ArrayNode one = BfclValues.list();
                one.add(dicts.get(i));
                result = dictCheck(param, value.get(i), one);
                if (!result.valid()) {
                    ok = false;
                    break;
                }
            }
            if (ok) return Verdict.VALID;
        }
        return result;
    }

    static PyType pythonType(String declared) {
        return switch (declared) {
            case "string", "any" -> PyType.STR;
            case "integer" -> PyType.INT;
            case "float" -> PyType.FLOAT;
            case "boolean" -> PyType.BOOL;
            case "array", "tuple" -> PyType.LIST;
            case "dict" -> PyType.DICT;
            default -> throw new IllegalArgumentException("unsupported Python type " + declared);
        };
    }

    static PyType javaType(String declared) {
        return switch (declared) {
            case "byte", "short", "integer", "long" -> PyType.INT;
            case "float", "double" -> PyType.FLOAT;
            case "boolean" -> PyType.BOOL;
            case "char", "String", "any" -> PyType.STR;
            case "Array", "ArrayList", "Queue", "Stack" -> PyType.LIST;
            case "Set" -> PyType.SET;
            case "HashMap", "Hashtable" -> PyType.DICT;
            default -> throw new IllegalArgumentException("unsupported Java type " + declared);
        };
    }

    static PyType jsType(String declared) {
        return switch (declared) {
            case "String", "any" -> PyType.STR;
            case "integer", "Bigint" -> PyType.INT;
            case "float" -> PyType.FLOAT;
            case "Boolean" -> PyType.BOOL;
            case "dict" -> PyType.DICT;
            case "array" -> PyType.LIST;
            default -> throw new IllegalArgumentException("unsupported JavaScript type " + declared);
        };
    }
}
