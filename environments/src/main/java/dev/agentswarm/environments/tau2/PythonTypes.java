package dev.agentswarm.environments.tau2;

import com.fasterxml.jackson.databind.JsonNode;

/** The Python type name of a JSON value, for the messages Python's own errors would give. */
final class PythonTypes {

    private PythonTypes() {}

    static String name(JsonNode v) {
        if (v == null || v.isNull() || v.isMissingNode()) return "NoneType";
        if (v.isBoolean()) return "bool";
        if (v.isIntegralNumber()) return "int";
        if (v.isNumber()) return "float";
        if (v.isTextual()) return "str";
        if (v.isArray()) return "list";
        return "dict";
    }
}
