package dev.agentswarm.environments.tau2;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A τ² toolkit: the functions of one side of a domain (the agent's or the user's) over its database,
 * called by name with JSON arguments exactly as τ² calls them: no type conversion, a missing or
 * unexpected argument refused with Python's own words, and whatever a function changed before it
 * failed left changed. Tools are the functions a model may call; the others (assertions, setup
 * helpers) only tasks and their checks call.
 */
abstract class Toolkit {

    /** How τ² classifies a tool: writes change the database and are replayed when a trajectory is graded. */
    enum Kind { READ, WRITE, THINK, GENERIC }

    /** The tools' parameters that are not strings (lists of ids aside), by name, as τ²'s signatures type them. */
    private static final Map<String, String> NON_STRING = Map.of("gb_amount", "number", "limit", "integer", "apn_settings", "object");

    /** One function: its name, parameters (required first), whether a model may call it, and its kind. */
    record Function(String name, List<String> required, List<String> optional, boolean tool, Kind kind, String description,
                    Map<String, String> parameterDescriptions) {

        boolean mutates() {
            return kind == Kind.WRITE;
        }

        /** The tool as a model is offered it: its parameters as JSON Schema (lists of ids are arrays of strings). */
        dev.agentswarm.core.protocol.ToolSpec spec() {
            ObjectNode params = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
            params.put("type", "object");
            ObjectNode props = params.putObject("properties");
            List<String> all = new ArrayList<>(required);
            all.addAll(optional);
            for (String p : all) {
                ObjectNode prop = props.putObject(p);
                if (p.endsWith("_ids")) prop.put("type", "array").putObject("items").put("type", "string");
                else prop.put("type", NON_STRING.getOrDefault(p, "string"));
                String doc = parameterDescriptions.getOrDefault(p, "");
                if (!doc.isEmpty()) prop.put("description", doc);
            }
            com.fasterxml.jackson.databind.node.ArrayNode req = params.putArray("required");
            required.forEach(req::add);
            return new dev.agentswarm.core.protocol.ToolSpec(name, description, params);
        }
    }

    private final String className;
    private final Map<String, Function> functions = new LinkedHashMap<>();
    /** The database the functions act on: replaced whole by initialization data. */
    ObjectNode db;

    Toolkit(String className, ObjectNode db) {
        this.className = className;
        this.db = db;
    }

    void tool(String name, Kind kind, String description, String... params) {
        define(name, true, kind, description, params);
    }

    void helper(String name, String... params) {
        define(name, false, Kind.GENERIC, "", params);
    }

    /** Parameters as "name: description"; a name ending in "?" is optional. */
    private void define(String name, boolean tool, Kind kind, String description, String... params) {
        List<String> required = new ArrayList<>();
        List<String> optional = new ArrayList<>();
        Map<String, String> docs = new LinkedHashMap<>();
        for (String p : params) {
            int colon = p.indexOf(':');
            String n = (colon < 0 ? p : p.substring(0, colon)).strip();
            boolean opt = n.endsWith("?");
            if (opt) n = n.substring(0, n.length() - 1);
            (opt ? optional : required).add(n);
            docs.put(n, colon < 0 ? "" : p.substring(colon + 1).strip());
        }
        functions.put(name, new Function(name, List.copyOf(required), List.copyOf(optional), tool, kind, description, docs));
    }

    /** The functions a model may call, in τ²'s order. */
    List<Function> tools() {
        return functions.values().stream().filter(Function::tool).toList();
    }

    Function function(String name) {
        return functions.get(name);
    }

    boolean isTool(String name) {
        Function f = functions.get(name);
        return f != null && f.tool();
    }

    /** A model's call: only tools, by name ({@code Tool 'x' not found.} otherwise). */
    Object useTool(String name, JsonNode args) {
        if (!isTool(name)) throw new Tau2Error("Tool '" + name + "' not found.");
        return call(name, args);
    }

    /** A task's or a check's call: any function, tool or not. */
    Object call(String name, JsonNode args) {
        Function f = functions.get(name);
        if (f == null) throw new Tau2Error("'" + className + "' object has no attribute '" + name + "'");
        Args a = bind(f, args == null || args.isNull() ? db.objectNode() : args);
        return run(name, a);
    }

    /** A record as τ²'s model dumps it: its fields in declared order, unset ones as null. */
    static ObjectNode dump(JsonNode record, List<String> fields) {
        ObjectNode out = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
        for (String f : fields) {
            JsonNode v = record.get(f);
            out.set(f, v == null ? out.nullNode() : v.deepCopy());
        }
        return out;
    }

    /** Runs a bound call; subclasses switch on the name. */
    abstract Object run(String name, Args args);

    private Args bind(Function f, JsonNode args) {
        if (!args.isObject()) throw new Tau2Error(className + "." + f.name() + "() argument after ** must be a mapping, not " + args.getNodeType());
        for (Iterator<String> it = args.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!f.required().contains(k) && !f.optional().contains(k)) {
                throw new Tau2Error(className + "." + f.name() + "() got an unexpected keyword argument '" + k + "'");
            }
        }
        List<String> missing = f.required().stream().filter(r -> !args.has(r)).toList();
        if (!missing.isEmpty()) {
            throw new Tau2Error(className + "." + f.name() + "() missing " + missing.size() + " required positional argument"
                    + (missing.size() == 1 ? "" : "s") + ": " + pythonList(missing));
        }
        return new Args(f.name(), args);
    }

    /** Python's way of naming missing arguments: 'a', 'a' and 'b', 'a', 'b', and 'c'. */
    private static String pythonList(List<String> names) {
        List<String> q = names.stream().map(n -> "'" + n + "'").toList();
        if (q.size() == 1) return q.get(0);
        if (q.size() == 2) return q.get(0) + " and " + q.get(1);
        return String.join(", ", q.subList(0, q.size() - 1)) + ", and " + q.get(q.size() - 1);
    }

    /** A call's arguments as given: values are used as they are, and a wrong type fails where Python would. */
    record Args(String function, JsonNode values) {
        JsonNode get(String name) {
            JsonNode v = values.get(name);
            return v == null ? com.fasterxml.jackson.databind.node.NullNode.getInstance() : v;
        }

        /** A string argument as Python would use it in a comparison: a non-string never equals a stored string. */
        String text(String name) {
            JsonNode v = get(name);
            return v.isTextual() ? v.asText() : null;
        }

        boolean has(String name) {
            return values.has(name);
        }
    }
}
