package dev.agentswarm.learner.data;

import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.core.tool.ArithmeticExpression;
import dev.agentswarm.core.tool.CalculatorTool;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Synthetic tool-use conversations that need no network: a user asks for an expression too large
 * to do in one's head, the assistant calls the {@code calculator} tool with it, the tool answers
 * with the exact value (computed by the same code as the real tool), and the assistant states it.
 * The same seed gives the same file, byte for byte.
 */
public final class ArithmeticConversations {

    public static final String SYSTEM_PROMPT = "You are a careful assistant. Use the calculator tool for any"
            + " arithmetic, then state the result.";

    private static final String[] QUESTIONS = {
        "What is %s?", "Compute %s.", "Please calculate %s exactly.", "I need the value of %s.",
        "How much is %s?", "Can you work out %s for me?", "Evaluate %s.",
    };
    private static final String[] ANSWERS = {"%s = %s.", "The result is %2$s.", "The answer is %2$s.", "%s equals %s."};

    private ArithmeticConversations() {}

    public static List<Conversation> generate(int n, long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        ToolSpec calculator = new CalculatorTool().spec();
        List<Conversation> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String expression = expression(rng);
            String result = ArithmeticExpression.format(ArithmeticExpression.evaluate(expression));
            String callId = "call_" + (i + 1);
            var args = Json.object().put("expression", expression);
            List<Message> messages = List.of(
                    Message.system(SYSTEM_PROMPT),
                    Message.user(String.format(QUESTIONS[rng.nextInt(QUESTIONS.length)], expression)),
                    Message.assistant("", List.of(new ToolCall(callId, CalculatorTool.NAME, args))),
                    Message.tool(callId, CalculatorTool.NAME, result),
                    Message.assistant(String.format(ANSWERS[rng.nextInt(ANSWERS.length)], expression, result)));
            out.add(new Conversation(messages, List.of(calculator)));
        }
        return out;
    }

    /** Writes {@code n} conversations as JSONL in the Hugging Face messages format. */
    public static void write(Path file, int n, long seed) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (Conversation c : generate(n, seed)) {
                w.write(Json.write(c.toHuggingFace()));
                w.write('\n');
            }
        }
    }

    /** Two or three operands of 2–4 digits with + − ×, sometimes a bracket, or an exact division. */
    private static String expression(SplittableRandom rng) {
        int kind = rng.nextInt(10);
        if (kind == 0) {
            long divisor = number(rng, 1 + rng.nextInt(2));
            long quotient = number(rng, 2 + rng.nextInt(2));
            return (divisor * quotient) + " / " + divisor;
        }
        String a = Long.toString(number(rng, 2 + rng.nextInt(3)));
        String b = Long.toString(number(rng, 2 + rng.nextInt(3)));
        String op1 = op(rng);
        if (kind < 5) return a + " " + op1 + " " + b;
        String c = Long.toString(number(rng, 1 + rng.nextInt(3)));
        String op2 = op(rng);
        return kind < 8 ? "(" + a + " " + op1 + " " + b + ") " + op2 + " " + c : a + " " + op1 + " " + b + " " + op2 + " " + c;
    }

    private static String op(SplittableRandom rng) {
        int k = rng.nextInt(3);
        return k == 0 ? "+" : k == 1 ? "-" : "*";
    }

    private static long number(SplittableRandom rng, int digits) {
        long low = digits == 1 ? 2 : (long) Math.pow(10, digits - 1);
        return low + rng.nextLong((long) Math.pow(10, digits) - low);
    }
}
