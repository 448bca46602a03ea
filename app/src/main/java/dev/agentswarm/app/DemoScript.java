package dev.agentswarm.app;

import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.tool.ArithmeticExpression;
import dev.agentswarm.testkit.ScriptedPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The scripted agent whose run the demo replays until the embedded model exists. It behaves
 * like a small tool-using model, mistakes included: some episodes first emit a malformed call
 * or a wrong argument name and correct themselves after the error observation; some split the
 * work into two parallel calculator calls and combine the results.
 */
public final class DemoScript {

    private DemoScript() {}

    /** {@code n} arithmetic tasks drawn from {@code seed}, each with its exact answer. */
    public static List<Task> tasks(int n, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<Task> tasks = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String left = "(" + rnd.nextInt(2, 60) + " + " + rnd.nextInt(2, 60) + ") * " + rnd.nextInt(2, 12);
            String right = rnd.nextInt(2, 9) + " ^ " + rnd.nextInt(2, 4) + " / " + rnd.nextInt(2, 8);
            String expr = left + " - " + right;
            String answer = ArithmeticExpression.format(ArithmeticExpression.evaluate(expr));
            tasks.add(new Task("calc-" + i, "What is " + expr + "?", answer, Map.of("left", left, "right", right)));
        }
        return tasks;
    }

    /** The scripted policy: its behaviour depends only on the task and what it has observed. */
    public static ScriptedPolicy policy(List<Task> tasks) {
        return ScriptedPolicy.texts(req -> reply(req, tasks));
    }

    static String reply(CompletionRequest req, List<Task> tasks) {
        String prompt = req.messages().get(1).content();
        Task task = tasks.stream().filter(t -> t.prompt().equals(prompt)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("not a demo task: " + prompt));
        int i = Integer.parseInt(task.id().substring("calc-".length()));
        String expr = prompt.substring("What is ".length(), prompt.length() - 1);
        String last = req.messages().get(req.messages().size() - 1).content();
        int turn = req.turn();
        if (i % 5 == 1 && turn == 1) {
            return "<think>I will use the calculator.</think>\n<tool_call>\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \""
                    + expr + "\"\n</tool_call>";
        }
        if (i % 5 == 3 && turn == 1) return call("{\"expr\": \"" + expr + "\"}");
        boolean split = i % 4 == 2;
        int firstRealTurn = (i % 5 == 1 || i % 5 == 3) ? 2 : 1;
        if (turn == firstRealTurn) {
            if (split) {
                return "<think>Two independent parts: compute them in parallel.</think>\n"
                        + call("{\"expression\": \"" + task.metadata().get("left") + "\"}") + "\n"
                        + call("{\"expression\": \"" + task.metadata().get("right") + "\"}");
            }
            return call("{\"expression\": \"" + expr + "\"}");
        }
        if (split && turn == firstRealTurn + 1) {
            List<String> parts = responses(last);
            return call("{\"expression\": \"" + parts.get(0) + " - " + parts.get(1) + "\"}");
        }
        return responses(last).get(0);
    }

    private static String call(String args) {
        return "<tool_call>\n{\"name\": \"calculator\", \"arguments\": " + args + "}\n</tool_call>";
    }

    /** The contents of the {@code <tool_response>} blocks of an observation. */
    private static List<String> responses(String observation) {
        List<String> out = new ArrayList<>();
        int from = 0;
        while (true) {
            int a = observation.indexOf("<tool_response>\n", from);
            if (a < 0) break;
            int b = observation.indexOf("\n</tool_response>", a);
            out.add(observation.substring(a + 16, b).strip());
            from = b + 1;
        }
        return out;
    }
}
