package dev.agentswarm.core.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ArithmeticExpressionTest {

    private static String eval(String s) {
        return ArithmeticExpression.format(ArithmeticExpression.evaluate(s));
    }

    private static String error(String s) {
        return assertThrows(IllegalArgumentException.class, () -> ArithmeticExpression.evaluate(s), s).getMessage();
    }

    @Test
    void precedence() {
        assertEquals("20", eval("(2 + 3) * 4"));
        assertEquals("14", eval("2 + 3 * 4"));
        assertEquals("10", eval("2 * 3 + 4"));
        assertEquals("7", eval("1 + 2 * 3 ^ 1"));
        assertEquals("19", eval("1 + 2 * 3 ^ 2"));
        assertEquals("3.5", eval("1 + 5 / 2"));
        assertEquals("-4", eval("-2^2"));
        assertEquals("4", eval("(-2)^2"));
        assertEquals("-6", eval("-2*3"));
        assertEquals("0.25", eval("2^-2"));
        assertEquals("-8", eval("2 * -4"));
        assertEquals("1", eval("--1"));
        assertEquals("-1", eval("---1"));
        assertEquals("3", eval("+3"));
        assertEquals("42", eval("((((42))))"));
    }

    @Test
    void associativity() {
        assertEquals("512", eval("2^3^2"));
        assertEquals("512", eval("2**3**2"));
        assertEquals("2", eval("8 - 4 - 2"));
        assertEquals("1", eval("8 / 4 / 2"));
        assertEquals("0.5", eval("2 ^ -1 ^ 1"));
        assertEquals("64", eval("(2^3)^2"));
    }

    @Test
    void unicodeOperators() {
        assertEquals("12", eval("3 × 4"));
        assertEquals("2.5", eval("5 ÷ 2"));
        assertEquals("1", eval("3 − 2"));
        assertEquals("-2", eval("−2"));
        assertEquals("20", eval("(2\u00A0+\u00A03)\t×\n4"));
    }

    @Test
    void exactness() {
        assertEquals("0.3", eval("0.1+0.2"));
        assertEquals("0.3333333333333333333333333333333333", eval("1/3"));
        assertEquals("1", eval("0.1*10"));
        assertEquals("123456789012345678901234567890", eval("123456789012345678901234567890 * 1"));
        assertEquals("1267650600228229401496703205376", eval("2^100"));
        assertEquals("0.0009765625", eval("2^-10"));
        assertEquals("0", eval("1.5 - 1.50"));
        assertEquals("100", eval("1e2"));
        assertEquals("0.025", eval("2.5E-2"));
        assertEquals("0.5", eval(".5"));
        assertEquals("5", eval("5."));
        assertEquals("1", eval("7^0"));
        assertEquals("1", eval("0^0"));
        assertEquals("0", eval("0^5"));
        assertEquals(new BigDecimal("2.5"), ArithmeticExpression.evaluate("5/2"));
        assertEquals(3011, eval("2^10000").length());
    }

    @Test
    void nonIntegerExponentsGoThroughDouble() {
        assertEquals("1.4142135623730951", eval("2^0.5"));
        assertEquals("3", eval("9^0.5"));
        assertEquals("2", eval("8^(1/3)"));
    }

    @Test
    void errorMessages() {
        assertEquals("empty expression", error(""));
        assertEquals("empty expression", error("   "));
        assertEquals("empty expression", error(null));
        assertTrue(error("1/0").startsWith("division by zero"), error("1/0"));
        assertTrue(error("1/(2-2)").startsWith("division by zero"));
        assertEquals("division by zero (0 to a negative power)", error("0^-1"));
        assertEquals("division by zero (0 to a negative power)", error("0^-0.5"));
        assertEquals("unexpected ')' at position 8 in: (2 + 3)) * 4 (no '(' left to close)", error("(2 + 3)) * 4"));
        assertEquals("number expected at position 3 (end of expression) in: 2+", error("2+"));
        assertEquals("number expected at position 3 in: 2+*3", error("2+*3"));
        assertEquals("number expected at position 2 in: ()", error("()"));
        assertEquals("unbalanced parentheses: '(' at position 1 is never closed in: (2+3", error("(2+3"));
        assertEquals("unbalanced parentheses: '(' at position 3 is never closed in: 1+((2)", error("1+((2)"));
        assertEquals("unexpected character 'x' at position 3 in: 2 x 3 (allowed: numbers, + - * / ^, × ÷ −, and parentheses)",
                error("2 x 3"));
        assertEquals("unexpected '3' at position 3 in: 2 3 (expected an operator)", error("2 3"));
        assertEquals("unexpected '(' at position 2 in: 2(3) (expected an operator)", error("2(3)"));
        assertEquals("unexpected '4' at position 6 in: (2+3 4) (expected an operator or ')')", error("(2+3 4)"));
        assertEquals("malformed number '.' at position 1 in: .", error("."));
        assertEquals("unexpected '.' at position 4 in: 1.2.3 (expected an operator)", error("1.2.3"));
        assertEquals("exponent too large: |exponent| must be at most 10000, got 10001 at position 2 in: 2^10001", error("2^10001"));
        assertEquals("exponent too large: |exponent| must be at most 10000, got -20000 at position 2 in: 2^-20000", error("2^-20000"));
        assertEquals("result too large: more than 10000 digits", error("99^10000"));
        assertEquals("result too large: more than 10000 digits", error("(2^10000)^10000"));
        assertEquals("result too large: more than 10000 digits", error("10^5000 * 10^5001"));
        assertEquals("result too large: more than 10000 digits", error("10^9999 + 10^-9999"));
        assertEquals("result too large: more than 10000 digits", error("2^99999.5"));
        assertTrue(error("1e99999999999").startsWith("number out of range"), error("1e99999999999"));
        assertTrue(error("1e20000").startsWith("number has too many digits"));
        assertEquals("a negative number to a non-integer power is not a real number: -8 ^ 0.5", error("(-8)^0.5"));
        assertTrue(error("(".repeat(300) + "1" + ")".repeat(300)).startsWith("expression is nested too deeply"));
        assertTrue(error("2^".repeat(300) + "1").startsWith("expression is nested too deeply"));
    }

    @Test
    void longExpressionsAreExcerpted() {
        String e = "1+".repeat(200) + "x";
        String m = error(e);
        assertTrue(m.startsWith("unexpected character 'x' at position 401 in: …"), m);
        assertTrue(m.length() < 300, m);
    }

    @Test
    void longUnaryChainsUseNoStack() {
        assertEquals("5", eval("-".repeat(100_000) + "5"));
    }

    @Test
    void randomInputsOnlyEverFailWithIllegalArgument() {
        Random r = new Random(7);
        String alphabet = "0123456789.+-*/^() ×÷−e";
        for (int i = 0; i < 20_000; i++) {
            StringBuilder sb = new StringBuilder();
            for (int n = r.nextInt(25); n > 0; n--) sb.append(alphabet.charAt(r.nextInt(alphabet.length())));
            try {
                ArithmeticExpression.format(ArithmeticExpression.evaluate(sb.toString()));
            } catch (IllegalArgumentException e) {
                assertTrue(e.getMessage() != null && !e.getMessage().isBlank());
            }
        }
    }

    @Test
    void calculatorToolWrapsTheParser() {
        CalculatorTool t = new CalculatorTool();
        assertEquals("calculator", t.name());
        assertEquals("string", t.spec().parameters().at("/properties/expression/type").asText());
        assertTrue(t.spec().parameters().at("/properties/expression/description").asText().length() > 10);
        var ok = t.invoke(dev.agentswarm.core.json.Json.object().put("expression", "6*7"), null).toCompletableFuture();
        assertEquals("42", ok.join());
        var bad = t.invoke(dev.agentswarm.core.json.Json.object().put("expression", "6*"), null).toCompletableFuture();
        assertTrue(bad.isCompletedExceptionally());
        var missing = t.invoke(dev.agentswarm.core.json.Json.object(), null).toCompletableFuture();
        assertTrue(missing.isCompletedExceptionally());
    }

    @Test
    void finishToolReturnsTheAnswer() {
        FinishTool t = new FinishTool();
        assertEquals("finish", t.name());
        assertEquals("Paris", t.invoke(dev.agentswarm.core.json.Json.object().put("answer", "Paris"), null).toCompletableFuture().join());
        assertTrue(t.invoke(dev.agentswarm.core.json.Json.object(), null).toCompletableFuture().isCompletedExceptionally());
        assertEquals("Paris", FinishTool.answerOf(new dev.agentswarm.core.protocol.ToolCall("c", "finish",
                dev.agentswarm.core.json.Json.object().put("answer", "Paris"))));
        assertEquals(null, FinishTool.answerOf(new dev.agentswarm.core.protocol.ToolCall("c", "calculator",
                dev.agentswarm.core.json.Json.object().put("answer", "Paris"))));
    }
}
