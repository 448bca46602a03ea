package dev.agentswarm.core.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class JsonSchemaValidatorTest {

    private static JsonNode json(String s) {
        try {
            return Json.parse(s.replace('\'', '"'));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static List<String> check(String schema, String value) {
        return JsonSchemaValidator.validate(json(schema), json(value), "arguments");
    }

    private static void valid(String schema, String value) {
        assertEquals(List.of(), check(schema, value), () -> value + " should be valid against " + schema);
    }

    private static void invalid(String schema, String value, String... expected) {
        assertEquals(List.of(expected), check(schema, value));
    }

    @Test
    void typeNames() {
        valid("{'type':'string'}", "'x'");
        valid("{'type':'number'}", "3.5");
        valid("{'type':'number'}", "3");
        valid("{'type':'integer'}", "3");
        valid("{'type':'integer'}", "3.0");
        valid("{'type':'integer'}", "12345678901234567890");
        valid("{'type':'boolean'}", "false");
        valid("{'type':'object'}", "{}");
        valid("{'type':'array'}", "[]");
        valid("{'type':'null'}", "null");
        invalid("{'type':'integer'}", "'3'", "arguments: expected integer, got string \"3\"");
        invalid("{'type':'integer'}", "3.5", "arguments: expected integer, got number 3.5");
        invalid("{'type':'string'}", "3", "arguments: expected string, got integer 3");
        invalid("{'type':'boolean'}", "'true'", "arguments: expected boolean, got string \"true\"");
        invalid("{'type':'object'}", "[1]", "arguments: expected object, got array");
        invalid("{'type':'array'}", "{}", "arguments: expected array, got object");
        invalid("{'type':'null'}", "0", "arguments: expected null, got integer 0");
        invalid("{'type':'number'}", "null", "arguments: expected number, got null");
    }

    @Test
    void typeListMakesFieldsNullable() {
        valid("{'type':['string','null']}", "null");
        valid("{'type':['string','null']}", "'a'");
        invalid("{'type':['string','null']}", "1", "arguments: expected string or null, got integer 1");
        invalid("{'type':['string','integer','null']}", "true",
                "arguments: expected string, integer or null, got boolean true");
    }

    @Test
    void unknownTypeNamesAndKeywordsAreIgnored() {
        valid("{'type':'float'}", "'anything'");
        valid("{'type':'string','format':'email','x-custom':{'a':1},'$comment':'c'}", "'not an email'");
    }

    @Test
    void openApiNullable() {
        valid("{'type':'string','nullable':true}", "null");
        invalid("{'type':'string','nullable':false}", "null", "arguments: expected string, got null");
    }

    @Test
    void requiredAndNestedPaths() {
        String schema = "{'type':'object','required':['expression','options'],'properties':{"
                + "'expression':{'type':'string'},"
                + "'options':{'type':'object','required':['unit'],'properties':{'unit':{'enum':['celsius','fahrenheit']}}}}}";
        valid(schema, "{'expression':'1','options':{'unit':'celsius'}}");
        invalid(schema, "{'options':{'unit':'celsius'}}", "arguments.expression: required field is missing");
        invalid(schema, "{'expression':'1','options':{'unit':'kelvin'}}",
                "arguments.options.unit: expected one of [\"celsius\",\"fahrenheit\"], got \"kelvin\"");
        invalid(schema, "{'expression':'1','options':{}}", "arguments.options.unit: required field is missing");
        invalid(schema, "{}", "arguments.expression: required field is missing",
                "arguments.options: required field is missing");
        // A present null still counts as present for "required".
        invalid(schema, "{'expression':null,'options':{'unit':'celsius'}}",
                "arguments.expression: expected string, got null");
    }

    @Test
    void oddFieldNamesAreBracketed() {
        invalid("{'required':['a b']}", "{}", "arguments[\"a b\"]: required field is missing");
        invalid("{'properties':{'x.y':{'type':'string'}}}", "{'x.y':1}", "arguments[\"x.y\"]: expected string, got integer 1");
    }

    @Test
    void additionalPropertiesFalseAndSchema() {
        String closed = "{'type':'object','properties':{'a':{},'b':{}},'additionalProperties':false}";
        valid(closed, "{'a':1,'b':2}");
        invalid(closed, "{'a':1,'c':2}", "arguments.c: unexpected field; allowed fields: a, b");
        invalid("{'additionalProperties':false}", "{'c':2}", "arguments.c: unexpected field; allowed fields: (none)");
        String typed = "{'type':'object','properties':{'a':{}},'additionalProperties':{'type':'integer'}}";
        valid(typed, "{'a':'x','n':1,'m':2}");
        invalid(typed, "{'a':'x','n':'1'}", "arguments.n: expected integer, got string \"1\"");
        valid("{'additionalProperties':true}", "{'z':1}");
    }

    @Test
    void enumAndConstCompareAsJson() {
        valid("{'enum':[1,2,3]}", "2.0");
        valid("{'enum':[{'a':1,'b':[1,2]}]}", "{'b':[1,2],'a':1}");
        invalid("{'enum':[1,2,3]}", "4", "arguments: expected one of [1,2,3], got 4");
        valid("{'const':'x'}", "'x'");
        invalid("{'const':'x'}", "'y'", "arguments: expected \"x\", got \"y\"");
        invalid("{'const':null}", "0", "arguments: expected null, got 0");
    }

    @Test
    void arrays() {
        String schema = "{'type':'array','items':{'type':'integer','minimum':0},'minItems':1,'maxItems':3}";
        valid(schema, "[0,1,2]");
        invalid(schema, "[]", "arguments: expected at least 1 items, got 0");
        invalid(schema, "[1,2,3,4]", "arguments: expected at most 3 items, got 4");
        invalid(schema, "[1,'2',-1]", "arguments[1]: expected integer, got string \"2\"",
                "arguments[2]: expected a number >= 0, got -1");
        // Tuple form: positions checked, extras free.
        valid("{'items':[{'type':'string'},{'type':'integer'}]}", "['a',1,true]");
        invalid("{'items':[{'type':'string'},{'type':'integer'}]}", "[1,1]", "arguments[0]: expected string, got integer 1");
        String nested = "{'properties':{'rows':{'type':'array','items':{'type':'object','required':['id'],"
                + "'properties':{'tags':{'type':'array','items':{'type':'string'}}}}}}}";
        invalid(nested, "{'rows':[{'id':1},{'tags':['a',2]}]}", "arguments.rows[1].id: required field is missing",
                "arguments.rows[1].tags[1]: expected string, got integer 2");
    }

    @Test
    void strings() {
        valid("{'minLength':2,'maxLength':3}", "'ab'");
        invalid("{'minLength':2}", "'a'", "arguments: expected at least 2 characters, got 1");
        invalid("{'maxLength':3}", "'abcd'", "arguments: expected at most 3 characters, got 4");
        // Code points, not UTF-16 units: one emoji is one character.
        valid("{'maxLength':1}", "'\uD83D\uDE00'");
        valid("{'pattern':'^[a-z]+$'}", "'abc'");
        valid("{'pattern':'[0-9]'}", "'abc1def'");
        invalid("{'pattern':'^[a-z]+$'}", "'abC'", "arguments: \"abC\" does not match pattern \"^[a-z]+$\"");
        // A broken pattern is the schema's fault and is ignored.
        valid("{'pattern':'(unclosed'}", "'x'");
        // String keywords do not apply to other types.
        valid("{'minLength':5,'pattern':'^x$'}", "12");
    }

    @Test
    void numbers() {
        valid("{'minimum':1,'maximum':3}", "1");
        valid("{'minimum':1,'maximum':3}", "3");
        invalid("{'minimum':1}", "0.5", "arguments: expected a number >= 1, got 0.5");
        invalid("{'maximum':3}", "3.01", "arguments: expected a number <= 3, got 3.01");
        invalid("{'exclusiveMinimum':1}", "1", "arguments: expected a number > 1, got 1");
        invalid("{'exclusiveMaximum':3}", "3", "arguments: expected a number < 3, got 3");
        valid("{'exclusiveMinimum':1,'exclusiveMaximum':3}", "2");
        // Draft-4 boolean form modifies minimum/maximum.
        invalid("{'minimum':1,'exclusiveMinimum':true}", "1", "arguments: expected a number > 1, got 1");
        invalid("{'maximum':3,'exclusiveMaximum':true}", "3", "arguments: expected a number < 3, got 3");
        valid("{'minimum':1,'exclusiveMinimum':false}", "1");
        // Exact comparison, beyond double precision.
        invalid("{'maximum':9007199254740992}", "9007199254740993",
                "arguments: expected a number <= 9007199254740992, got 9007199254740993");
        valid("{'minimum':5}", "'not a number'");
    }

    @Test
    void anyOfOneOfAllOf() {
        String anyOf = "{'anyOf':[{'type':'string'},{'type':'integer','minimum':0}]}";
        valid(anyOf, "'x'");
        valid(anyOf, "3");
        invalid(anyOf, "-1", "arguments: matches none of the anyOf alternatives (alternative 1: expected string, "
                + "got integer -1; alternative 2: expected a number >= 0, got -1)");
        String oneOf = "{'oneOf':[{'type':'integer'},{'type':'number'}]}";
        valid(oneOf, "1.5");
        invalid(oneOf, "1", "arguments: matches 2 of the oneOf alternatives [1, 2], expected exactly one");
        invalid(oneOf, "'1'", "arguments: matches none of the oneOf alternatives (alternative 1: expected integer, "
                + "got string \"1\"; alternative 2: expected number, got string \"1\")");
        String allOf = "{'allOf':[{'minimum':0},{'maximum':10},{'type':'integer'}]}";
        valid(allOf, "5");
        invalid(allOf, "11.5", "arguments: expected a number <= 10, got 11.5", "arguments: expected integer, got number 11.5");
        // Nested paths inside alternatives keep their own path.
        invalid("{'anyOf':[{'required':['a']},{'required':['b']}]}", "{}",
                "arguments: matches none of the anyOf alternatives (alternative 1: arguments.a: required field is missing; "
                        + "alternative 2: arguments.b: required field is missing)");
        valid("{'anyOf':[]}", "1");
    }

    @Test
    void booleanSchemas() {
        valid("true", "{'a':1}");
        invalid("false", "1", "arguments: no value is allowed here");
        invalid("{'properties':{'a':false}}", "{'a':1}", "arguments.a: no value is allowed here");
        valid("{'properties':{'a':false}}", "{}");
    }

    @Test
    void nullAndOddInputsNeverThrow() {
        assertEquals(List.of(), JsonSchemaValidator.validate(null, json("1"), "arguments"));
        assertEquals(List.of(), JsonSchemaValidator.validate(json("'not a schema'"), json("1"), "arguments"));
        assertEquals(List.of("arguments: expected string, got null"),
                JsonSchemaValidator.validate(json("{'type':'string'}"), null, "arguments"));
        assertEquals(List.of("x: expected string, got integer 1"),
                JsonSchemaValidator.validate(json("{'type':'string'}"), json("1"), "x"));
        // Malformed keyword values are ignored rather than failing.
        valid("{'required':'a','properties':[1],'items':3,'enum':{},'minimum':'x','minLength':'y','anyOf':{}}", "{}");
        valid("{'type':3}", "1");
        valid("{'type':[]}", "1");
    }

    @Test
    void cyclicSchemaIsReportedNotOverflowed() {
        ObjectNode schema = Json.object();
        ObjectNode props = schema.putObject("properties");
        props.set("a", schema); // a schema that contains itself
        ObjectNode value = Json.object();
        ObjectNode cur = value;
        for (int i = 0; i < 500; i++) cur = cur.putObject("a");
        List<String> v = JsonSchemaValidator.validate(schema, value, "arguments");
        assertEquals(1, v.size());
        assertTrue(v.get(0).contains("nested too deeply"), v.get(0));
    }

    @Test
    void randomSchemasAndValuesNeverThrow() {
        Random r = new Random(42);
        for (int i = 0; i < 3000; i++) {
            JsonNode schema = randomNode(r, 4, true);
            JsonNode value = randomNode(r, 4, false);
            List<String> out = JsonSchemaValidator.validate(schema, value, "arguments");
            for (String line : out) assertTrue(line.startsWith("arguments"), line);
        }
    }

    private static final String[] KEYWORDS = {"type", "properties", "required", "additionalProperties", "enum", "const",
            "items", "minItems", "maxItems", "minLength", "maxLength", "pattern", "minimum", "maximum",
            "exclusiveMinimum", "exclusiveMaximum", "anyOf", "oneOf", "allOf", "nullable", "a", "b"};
    private static final String[] TYPES = {"string", "number", "integer", "boolean", "object", "array", "null", "x"};

    private static JsonNode randomNode(Random r, int depth, boolean schemaLike) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        int kind = depth <= 0 ? r.nextInt(5) : r.nextInt(7);
        switch (kind) {
            case 0: return f.nullNode();
            case 1: return f.booleanNode(r.nextBoolean());
            case 2: return r.nextBoolean() ? f.numberNode(r.nextInt(7) - 3) : f.numberNode(r.nextDouble() * 10 - 5);
            case 3: return f.textNode(schemaLike && r.nextBoolean() ? TYPES[r.nextInt(TYPES.length)] : r.nextBoolean() ? "a" : "(bad[");
            case 4: return f.textNode("b");
            case 5: {
                ArrayNode a = f.arrayNode();
                for (int i = r.nextInt(4); i > 0; i--) a.add(randomNode(r, depth - 1, schemaLike));
                return a;
            }
            default: {
                ObjectNode o = f.objectNode();
                for (int i = r.nextInt(5); i > 0; i--) {
                    o.set(KEYWORDS[r.nextInt(KEYWORDS.length)], randomNode(r, depth - 1, schemaLike));
                }
                return o;
            }
        }
    }

    @Test
    void calculatorSchemaChecksItsArguments() {
        JsonNode schema = new CalculatorTool().spec().parameters();
        List<String> out = JsonSchemaValidator.validate(schema, json("{'expression':'1+1'}"), "arguments");
        assertTrue(out.isEmpty());
        assertFalse(JsonSchemaValidator.validate(schema, json("{'expression':1}"), "arguments").isEmpty());
    }
}
