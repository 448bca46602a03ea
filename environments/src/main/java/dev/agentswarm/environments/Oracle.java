package dev.agentswarm.environments;

import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.ToolCall;
import java.util.List;

/**
 * Solves a suite's tasks the way a good agent would, through the suite's real tools: given the task
 * and the conversation so far (its tool results included), it says what to do next. Deterministic
 * for a task, a conversation and a {@link Noise}, so demonstrations are reproducible.
 */
public interface Oracle {

    /** The next assistant move. */
    Step next(Task task, List<Message> conversation, Noise noise);

    /** A thought, then either tool calls or a final answer. */
    record Step(String thought, List<ToolCall> calls, String answer) {

        public Step {
            thought = thought == null ? "" : thought;
            calls = calls == null ? List.of() : List.copyOf(calls);
            if (calls.isEmpty() == (answer == null)) {
                throw new IllegalArgumentException("an oracle step is tool calls or an answer, not both or neither");
            }
        }

        public static Step call(String thought, ToolCall... calls) {
            return new Step(thought, List.of(calls), null);
        }

        public static Step answer(String thought, String answer) {
            return new Step(thought, List.of(), answer);
        }
    }
}
