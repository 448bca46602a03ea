package dev.agentswarm.environments.bfcl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.agentswarm.core.json.PythonEquality;
import java.math.BigInteger;

/**
 * JSON values as BFCL's Python checker sees them once {@code json.loads} has made them Python objects:
 * their exact type ({@code bool} is not {@code int}, {@code 5.0} is a float) and Python's {@code ==},
 * under which {@code 1 == 1.0 == True}, a string equals only a string and lists compare element-wise.
 * The function-calling path never makes tuples, so there are none here.
 */
final class BfclValues {

    /** Python's types of decoded values (a {@code set} only names Java's {@code Set}, which BFCL cannot convert). */
    enum PyType {
        INT("int"), FLOAT("float"), BOOL("bool"), STR("str"), NONE("NoneType"), LIST("list"), DICT("dict"), SET("set");

        final String pythonName;

        PyType(String pythonName) {
            this.pythonName = pythonName;
        }
    }

    static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private BfclValues() {}

    static PyType typeOf(JsonNode v) {
        if (v == null || v.isNull() || v.isMissingNode()) return PyType.NONE;
        if (v.isBoolean()) return PyType.BOOL;
        if (v.isIntegralNumber()) return PyType.INT;
        if (v.isNumber()) return PyType.FLOAT;
        if (v.isTextual()) return PyType.STR;
        if (v.isArray()) return PyType.LIST;
        if (v.isObject()) return PyType.DICT;
        return PyType.STR;
    }

    /** Python's {@code a == b} for decoded values. */
    static boolean equal(JsonNode a, JsonNode b) {
        return PythonEquality.equal(a, b);
    }

    /** Python's {@code value in candidates}. */
    static boolean in(JsonNode value, Iterable<JsonNode> candidates) {
        for (JsonNode c : candidates) if (equal(value, c)) return true;
        return false;
    }

    static JsonNode integer(BigInteger v) {
        return v.bitLength() < 32 ? NODES.numberNode(v.intValue()) : v.bitLength() < 64 ? NODES.numberNode(v.longValue()) : NODES.numberNode(v);
    }

    static JsonNode decimal(double v) {
        return DoubleNode.valueOf(v);
    }

    static JsonNode text(String s) {
        return TextNode.valueOf(s);
    }

    static JsonNode bool(boolean b) {
        return BooleanNode.valueOf(b);
    }

    static ArrayNode list() {
        return NODES.arrayNode();
    }
}
