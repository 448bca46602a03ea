package dev.agentswarm.environments;

import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Role;
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

    /** Assistant moves made so far: where an oracle's plan stands. */
    static int moves(List<Message> conversation) {
        return (int) conversation.stream().filter(m -> m.role() == Role.ASSISTANT).count();
    }

    /** The text fed back after the last assistant move (tool messages, or the user message holding tool responses). */
    static String lastObservation(List<Message> conversation) {
        StringBuilder sb = new StringBuilder();
        for (int i = conversation.size() - 1; i >= 0; i--) {
            Message m = conversation.get(i);
            if (m.role() == Role.ASSISTANT) break;
            sb.insert(0, m.content() + "\n");
        }
        return sb.toString();
    }

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
