package dev.agentswarm.environments.code;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.environments.Noise;
import dev.agentswarm.environments.Oracle;
import dev.agentswarm.sandbox.CodeTools;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Writes the reference solution, runs it in the python tool on the problem's first example, and
 * answers with it in a fenced block. With noise it first wastes a call looking around the work
 * folder, or first runs a draft that returns nothing (a wrong call it sees fail and corrects),
 * and pads its thoughts.
 */
final class CodeOracle implements Oracle {

    private static final String FILLER = "Okay, let me think about this carefully and make sure I get every detail right. ";

    private final Function<Task, CodeProblem> problemOf;

    CodeOracle(Function<Task, CodeProblem> problemOf) {
        this.problemOf = problemOf;
    }

    @Override
    public Step next(Task task, List<Message> conversation, Noise noise) {
        CodeProblem p = problemOf.apply(task);
        String filler = noise.applies(noise.filler(), task.id(), "filler") ? FILLER : "";
        String example = p.tests().get(0);
        List<Step> plan = new ArrayList<>();
        if (noise.applies(noise.wastedCall(), task.id(), "wasted")) {
            plan.add(Step.call(filler + "First I will look at the work folder.", python("w", "import os\nprint(os.getcwd(), os.listdir('.'))")));
        }
        if (noise.applies(noise.wrongFirstCall(), task.id(), "wrong")) {
            String draft = "def " + p.entryPoint() + "(*args, **kwargs):\n    return None\n";
            plan.add(Step.call(filler + "Let me try a first draft on an example.", python("d", draft + example + "\nprint('example passed')")));
            plan.add(Step.call(filler + "The draft returns nothing; here is the full function.", check(p, example)));
        } else {
            plan.add(Step.call(filler + "I will write " + p.entryPoint() + " and run it on an example.", check(p, example)));
        }
        int moves = Oracle.moves(conversation);
        if (moves < plan.size()) return plan.get(moves);
        String thought = Oracle.lastObservation(conversation).contains("example passed") ? "It passes the example." : "Here is the function.";
        return Step.answer(filler + thought, "```python\n" + p.solution().strip() + "\n```");
    }

    private static ToolCall check(CodeProblem p, String example) {
        return python("c", p.solution().strip() + "\n\n" + example + "\nprint('example passed')");
    }

    private static ToolCall python(String id, String code) {
        ObjectNode args = Json.object();
        args.put("code", code);
        return new ToolCall(id, CodeTools.PYTHON, args);
    }
}
