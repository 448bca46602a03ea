package dev.agentswarm.core.protocol;

import dev.agentswarm.core.CborSerializable;
import java.util.List;

/**
 * What an episode has done, step by step, as a journal keeps it: each step is the policy's completion
 * (with its token ids and log-probs) and the results of the tool calls it asked for. An episode started
 * with a history resumes after it: the recorded completions stand in for the policy and the recorded
 * results for the tools, through the same loop, so the conversation the policy sees next is the one it
 * would have seen, no recorded tool call runs again, and the trajectory is the uninterrupted one's.
 *
 * <p>A step's {@code results} hold the calls that had finished when it was recorded, in call order: null
 * or fewer than its calls when the crash came while calls were in flight. A call without a recorded
 * result runs again on resume when its tool is idempotent ({@link dev.agentswarm.core.tool.Tool#idempotent});
 * otherwise it is not run again, and the episode reads that it was interrupted, its effect unknown
 * ({@link ToolStatus#INTERRUPTED}).
 */
public record EpisodeHistory(List<Step> steps) implements CborSerializable {

    /** One policy turn: its completion, and the results of its calls that had finished, in call order (null: none). */
    public record Step(Completion completion, List<ToolResult> results) implements CborSerializable {
        public Step {
            if (completion == null) throw new IllegalArgumentException("a step without a completion");
            results = results == null ? null : List.copyOf(results);
        }

        /** The recorded result of call {@code callId}, or null. */
        public ToolResult result(String callId) {
            if (results == null) return null;
            for (ToolResult r : results) if (r.callId().equals(callId)) return r;
            return null;
        }
    }

    public static final EpisodeHistory NONE = new EpisodeHistory(List.of());

    public EpisodeHistory {
        steps = List.copyOf(steps);
    }

    public boolean isEmpty() {
        return steps.isEmpty();
    }
}
